"""Per-turn state hashes: SHA-256 over a canonical encoding of one arena's bots and bullets.

Encoding: round and turn (int64), then per seat in_map (byte) and x, y, direction, gun_direction,
radar_direction, speed, energy, gun_heat (big-endian float64), then every bullet in flight in
creation order: id, owner (int64), power, x, y, direction (float64). Replays record these hashes;
re-simulation and the hosted/native parity test compare them.
"""

import hashlib
import struct

import numpy as np

from tankrl.arena.rules.engine import Engine

_BOT_FIELDS = (
    "x",
    "y",
    "direction",
    "gun_direction",
    "radar_direction",
    "speed",
    "energy",
    "gun_heat",
)


def state_hash(engine: Engine, arena: int = 0) -> str:
    bots, bl = engine.bots, engine.bullets
    parts = [struct.pack(">qq", int(engine.round_number[arena]), int(engine.turn_number[arena]))]
    for i in range(engine.n_bots):
        parts.append(b"\x01" if bots.in_map[arena, i] else b"\x00")
        parts.append(struct.pack(">8d", *(float(getattr(bots, f)[arena, i]) for f in _BOT_FIELDS)))
    x, y = bl.x, bl.y
    flying = sorted(
        np.nonzero(bl.active[:, arena])[0].tolist(), key=lambda k: int(bl.bullet_id[k, arena])
    )
    for k in flying:
        parts.append(
            struct.pack(
                ">qq4d",
                int(bl.bullet_id[k, arena]),
                int(bl.owner[k, arena]),
                float(bl.power[k, arena]),
                float(x[k, arena]),
                float(y[k, arena]),
                float(bl.direction[k, arena]),
            )
        )
    return hashlib.sha256(b"".join(parts)).hexdigest()

"""A hand-written demonstrator for goto/aim and goto/lead contracts (v2-v4): raw actions from
observations alone.

Pure numpy, batch-first. It reads only the contract's own features (by name), so what it does is
a function of what the policy sees, which is what behaviour cloning (deploy/pretrain.py) needs:

- aim: LEAD x the linear extrapolation of the enemy over the bullet's flight time (actor/lead.py;
  for v4 the lead itself is the action);
- fire: when the gun is within FIRE_WITHIN_DEG of the aim point; power falls linearly from 3 at
  POWER_NEAR to 1.2 at POWER_FAR (continuous, so the aim point it leads by is a smooth function
  of the observation, which a network copies about 20% more precisely than a stepped one);
- move: orbit the enemy at ORBIT_STEP px per decision, keeping the side the bot is already moving
  towards (so the choice is visible in the observation), stepping out below NEAR and in beyond
  FAR, and taking the other side when the chosen point would lie in a wall.

Raw actions are the pre-squash values the contract's decoder expects (logit of a sigmoid dim,
atanh-range values for tanh dims), clipped to |x| <= RAW_LIMIT.
"""

import numpy as np
import numpy.typing as npt

from tankrl.actor.lead import lead_point
from tankrl.shared.contracts import Contract, ContractError

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

EXPERT_DIMS = ("goto_x", "goto_y", "aim_x", "aim_y", "fire_decision", "fire_power")
LEAD_DIMS = ("goto_x", "goto_y", "aim_lead", "fire_decision", "fire_power")
"""The action layouts the expert plays: aim points (v2, v3) or a lead fraction (v4)."""
FIRE_WITHIN_DEG = 3.0
ORBIT_STEP = 150.0
RADIAL_BEND = np.radians(30.0)
"""How far the travel direction bends away from square to the enemy to open or close the range."""
MAX_TURN_AWAY = np.radians(60.0)
"""The travel direction stays within this angle of the way the bot moves."""
SMOOTHING_BENDS = np.radians([-20.0, 20.0, -40.0, 40.0, -60.0, 60.0, -80.0, 80.0, -100.0, -120.0])
"""Bends of the travel direction tried in turn when its point lies in a wall (+ = towards the
enemy for either side)."""
WALL_MARGIN = 40.0
RAW_LIMIT = 6.0
LEAD = 0.75
"""Fraction of the linear extrapolation used for the aim point (1 = full linear targeting)."""
POWER_NEAR, POWER_FAR = 150.0, 450.0
"""Fire power is 3 up to POWER_NEAR, 1.2 from POWER_FAR, linear between."""
NEAR, FAR = 150.0, 250.0
"""The orbit steps away from the enemy when closer than NEAR and towards it beyond FAR."""
_FEATURES = (
    "own_x",
    "own_y",
    "own_speed",
    "own_heading_sin",
    "own_heading_cos",
    "enemy_x",
    "enemy_y",
    "enemy_speed",
    "enemy_heading_sin",
    "enemy_heading_cos",
    "gun_remaining",
)


def _wrap(angle: F64) -> F64:
    """Radians folded into [-pi, pi)."""
    return np.asarray((angle + np.pi) % (2.0 * np.pi) - np.pi)


def _logit(p: F64) -> F64:
    p = np.clip(p, 1e-3, 1.0 - 1e-3)
    return np.asarray(np.log(p / (1.0 - p)))


class GotoAimExpert:
    """`actions(obs)` -> raw actions [B, A] for a goto/aim or goto/lead contract on a width x
    height arena."""

    def __init__(self, contract: Contract, width: float, height: float):
        dims = tuple(d.name for d in contract.actions)
        if dims not in (EXPERT_DIMS, LEAD_DIMS):
            raise ContractError(
                f"the expert plays goto/aim ({', '.join(EXPERT_DIMS)}) and goto/lead "
                f"({', '.join(LEAD_DIMS)}) contracts; "
                f"contract {contract.name} ({contract.sha256[:12]}) has {', '.join(dims)}"
            )
        self.leads = dims == LEAD_DIMS
        if self.leads:
            scale = next(d.scale for d in contract.actions if d.name == "aim_lead")
            if not isinstance(scale, float | int) or abs(LEAD) >= abs(scale):
                raise ContractError(f"contract {contract.name}: aim_lead cannot reach {LEAD}")
            self.raw_lead = float(np.arctanh(LEAD / scale))
        names = [f.name for f in contract.features]
        self.index = {name: names.index(name) for name in _FEATURES}
        self.width, self.height = float(width), float(height)

    def _feature(self, obs: F32, name: str) -> F64:
        return np.asarray(obs[:, self.index[name]], dtype=np.float64)

    def actions(self, obs: F32) -> F32:
        f = self._feature
        w, h = self.width, self.height
        ox, oy = f(obs, "own_x") * w, f(obs, "own_y") * h
        ex, ey = f(obs, "enemy_x") * w, f(obs, "enemy_y") * h
        e_speed = f(obs, "enemy_speed") * 8.0
        e_dir = np.arctan2(f(obs, "enemy_heading_sin"), f(obs, "enemy_heading_cos"))
        distance = np.hypot(ex - ox, ey - oy)
        ramp = np.clip((distance - POWER_NEAR) / (POWER_FAR - POWER_NEAR), 0.0, 1.0)
        power = 3.0 - 1.8 * ramp
        gx, gy = self._orbit(obs, ox, oy, ex, ey, distance)
        fire = np.where(f(obs, "gun_remaining") * 180.0 < FIRE_WITHIN_DEG, 2.0, -2.0)
        if self.leads:
            aim = [np.full_like(ox, self.raw_lead)]
        else:
            vx, vy = e_speed * np.cos(e_dir), e_speed * np.sin(e_dir)
            lead = np.full_like(ox, LEAD)
            px, py = lead_point(ox, oy, ex, ey, vx, vy, lead, power, w, h)
            aim = [_logit(px / w), _logit(py / h)]
        raw = np.stack(
            [_logit(gx / w), _logit(gy / h), *aim, fire, _logit((power - 0.1) / 2.9)], axis=1
        )
        out: F32 = np.clip(raw, -RAW_LIMIT, RAW_LIMIT).astype(np.float32)
        return out

    def _orbit(
        self, obs: F32, ox: F64, oy: F64, ex: F64, ey: F64, distance: F64
    ) -> tuple[F64, F64]:
        f = self._feature
        to_enemy = np.arctan2(ey - oy, ex - ox)
        speed = f(obs, "own_speed")
        sign = np.where(speed < 0.0, -1.0, 1.0)
        vx = sign * f(obs, "own_heading_cos")
        vy = sign * f(obs, "own_heading_sin")
        # +1: counter-clockwise side (to_enemy + 90 deg); the side we already move towards
        side = np.where(-np.sin(to_enemy) * vx + np.cos(to_enemy) * vy >= 0.0, 1.0, -1.0)
        # the travel direction: square to the enemy, bent outwards below NEAR, inwards beyond FAR,
        # and never more than MAX_TURN_AWAY from the way we move (so the goto turns, not reverses)
        radial = np.where(distance < NEAR, -1.0, np.where(distance > FAR, 1.0, 0.0))
        moving = np.arctan2(vy, vx)
        wanted = to_enemy + side * (np.pi / 2.0 - radial * RADIAL_BEND)
        off = np.clip(_wrap(wanted - moving), -MAX_TURN_AWAY, MAX_TURN_AWAY)
        travel = moving + off
        m = WALL_MARGIN
        # wall smoothing: the first bend of the travel direction whose point lies inside the
        # walls, keeping ahead of us if any does; the side flips only when no bend helps
        x, y = np.full_like(ox, np.nan), np.full_like(oy, np.nan)
        settled = np.zeros(ox.shape, dtype=np.bool_)
        for ahead_only in (True, False):
            for bend in (0.0, *SMOOTHING_BENDS):
                a = travel + side * bend
                bx, by = ox + ORBIT_STEP * np.cos(a), oy + ORBIT_STEP * np.sin(a)
                ok = self._inside(bx, by, m)
                if ahead_only:
                    ok &= np.abs(_wrap(a - moving)) <= np.pi / 2.0
                take = ~settled & ok
                x, y = np.where(take, bx, x), np.where(take, by, y)
                settled |= take
        a = to_enemy - side * np.pi / 2.0
        fx, fy = ox + ORBIT_STEP * np.cos(a), oy + ORBIT_STEP * np.sin(a)
        x, y = np.where(settled, x, fx), np.where(settled, y, fy)
        return np.clip(x, m, self.width - m), np.clip(y, m, self.height - m)

    def _inside(self, x: F64, y: F64, m: float) -> npt.NDArray[np.bool_]:
        return np.asarray((x >= m) & (x <= self.width - m) & (y >= m) & (y <= self.height - m))

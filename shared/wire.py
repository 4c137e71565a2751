"""Every message that crosses a process: Trajectory (bot -> learner) and WeightsUpdate (learner ->
bots), as msgpack with arrays as raw little-endian bytes.

Adding a defaulted field keeps WIRE_VERSION; removing, renaming or retyping a field bumps it.
Decoding checks the size limit before unpacking and validates every field; nothing is unpickled.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
import numpy as np
import numpy.typing as npt

WIRE_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Default size limit for one message; a 1,000-turn v2 trajectory is about 240 KB."""

_DTYPES = {"float32": np.float32, "int32": np.int32, "uint8": np.uint8, "bool": np.bool_}
InfoValue = float | int | str | bool


class WireError(ValueError):
    """A message could not be decoded or failed validation; the text says why."""


def pack_array(a: npt.NDArray[Any]) -> dict[str, Any]:
    """An array as {dtype, shape, data} with little-endian bytes; only float32/int32/uint8/bool."""
    name = a.dtype.name
    if name not in _DTYPES:
        raise WireError(f"dtype {name} cannot travel on the wire; use one of {sorted(_DTYPES)}")
    data = np.ascontiguousarray(a, dtype=np.dtype(_DTYPES[name]).newbyteorder("<")).tobytes()
    return {"dtype": name, "shape": list(a.shape), "data": data}


def unpack_array(obj: Any, what: str) -> npt.NDArray[Any]:
    """The inverse of pack_array, with every field checked."""
    if not isinstance(obj, dict) or set(obj) != {"dtype", "shape", "data"}:
        raise WireError(f"{what}: expected an array {{dtype, shape, data}}")
    dtype, shape, data = obj["dtype"], obj["shape"], obj["data"]
    if dtype not in _DTYPES:
        raise WireError(f"{what}: dtype {dtype!r} is not allowed")
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise WireError(f"{what}: bad shape {shape!r}")
    if not isinstance(data, bytes):
        raise WireError(f"{what}: data must be bytes")
    dt = np.dtype(_DTYPES[dtype]).newbyteorder("<")
    if len(data) != math.prod(shape) * dt.itemsize:
        raise WireError(f"{what}: {len(data)} bytes do not fit shape {shape} of {dtype}")
    return np.frombuffer(data, dtype=dt).reshape(shape).astype(dt.newbyteorder("="))


def _encode(kind: str, body: dict[str, Any]) -> bytes:
    return bytes(msgpack.packb({"wire": WIRE_VERSION, "kind": kind, **body}, use_bin_type=True))


def _decode(data: bytes, kind: str, max_bytes: int) -> dict[str, Any]:
    if len(data) > max_bytes:
        raise WireError(f"{kind} message of {len(data)} bytes exceeds the limit of {max_bytes}")
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception as e:  # msgpack raises several unrelated types
        raise WireError(f"{kind}: not valid msgpack ({type(e).__name__}: {e})") from None
    if not isinstance(obj, dict):
        raise WireError(f"{kind}: expected a map")
    if obj.get("wire") != WIRE_VERSION:
        raise WireError(f"{kind}: wire version {obj.get('wire')!r}, expected {WIRE_VERSION}")
    if obj.get("kind") != kind:
        raise WireError(f"expected a {kind} message, got {obj.get('kind')!r}")
    return obj


def _field(obj: Mapping[str, Any], name: str, types: type | tuple[type, ...], kind: str) -> Any:
    if name not in obj:
        raise WireError(f"{kind}: missing field {name!r}")
    value = obj[name]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise WireError(f"{kind}: field {name!r} has type {type(value).__name__}")
    return value


def _as_tuple(t: type | tuple[type, ...]) -> tuple[type, ...]:
    return t if isinstance(t, tuple) else (t,)


_STEP_ARRAYS = {
    "obs": (np.float32, 2),
    "actions": (np.float32, 2),
    "logprobs": (np.float32, 1),
    "values": (np.float32, 1),
    "rewards": (np.float32, 1),
    "terminals": (np.bool_, 1),
    "truncations": (np.bool_, 1),
}


@dataclass
class Trajectory:
    """One round of one bot, as sent to the learner.

    Step t holds the observation, the raw (pre-squash) action, its behaviour log-prob and value,
    the reward that followed, and whether the round ended after it by a natural end or death
    (terminal: value 0 after it) or by an interruption (truncation: bootstrap_value follows).
    """

    bot_id: str
    round_id: int
    policy_version: int
    contract_sha256: str
    obs: npt.NDArray[np.float32]
    actions: npt.NDArray[np.float32]
    logprobs: npt.NDArray[np.float32]
    values: npt.NDArray[np.float32]
    rewards: npt.NDArray[np.float32]
    terminals: npt.NDArray[np.bool_]
    truncations: npt.NDArray[np.bool_]
    bootstrap_value: float = 0.0
    info: dict[str, InfoValue] = field(default_factory=dict)
    """Round facts for metrics: kind, opponent, won, score, damage dealt/taken, skipped turns."""

    @property
    def turns(self) -> int:
        return int(self.rewards.shape[0])

    def encode(self) -> bytes:
        body: dict[str, Any] = {
            "bot_id": self.bot_id,
            "round_id": self.round_id,
            "policy_version": self.policy_version,
            "contract_sha256": self.contract_sha256,
            "bootstrap_value": float(self.bootstrap_value),
            "info": dict(self.info),
        }
        for name in _STEP_ARRAYS:
            body[name] = pack_array(getattr(self, name))
        return _encode("trajectory", body)

    @classmethod
    def decode(cls, data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> "Trajectory":
        """Decode and validate: shapes agree, values are finite, metadata has the right types."""
        kind = "trajectory"
        obj = _decode(data, kind, max_bytes)
        arrays = {}
        for name, (dtype, ndim) in _STEP_ARRAYS.items():
            a = unpack_array(_field(obj, name, dict, kind), f"{kind}.{name}")
            if a.dtype != dtype or a.ndim != ndim:
                raise WireError(f"{kind}.{name}: expected {ndim}-d {np.dtype(dtype).name}")
            if a.dtype == np.float32 and not np.isfinite(a).all():
                raise WireError(f"{kind}.{name}: holds non-finite values")
            arrays[name] = a
        turns = arrays["rewards"].shape[0]
        for name, a in arrays.items():
            if a.shape[0] != turns:
                raise WireError(f"{kind}.{name}: {a.shape[0]} turns, rewards has {turns}")
        info = _field(obj, "info", dict, kind)
        for k, v in info.items():
            if not isinstance(k, str) or not isinstance(v, float | int | str | bool):
                raise WireError(f"{kind}.info[{k!r}]: values must be numbers, strings or bools")
        bootstrap = float(_field(obj, "bootstrap_value", (float, int), kind))
        if not math.isfinite(bootstrap):
            raise WireError(f"{kind}.bootstrap_value must be finite")
        return cls(
            bot_id=_field(obj, "bot_id", str, kind),
            round_id=_field(obj, "round_id", int, kind),
            policy_version=_field(obj, "policy_version", int, kind),
            contract_sha256=_field(obj, "contract_sha256", str, kind),
            bootstrap_value=bootstrap,
            info=info,
            **arrays,
        )


@dataclass
class WeightsUpdate:
    """A versioned policy published by the learner: named float32 tensors for one contract."""

    policy_version: int
    contract_sha256: str
    tensors: dict[str, npt.NDArray[np.float32]]

    def encode(self) -> bytes:
        body = {
            "policy_version": self.policy_version,
            "contract_sha256": self.contract_sha256,
            "tensors": {k: pack_array(np.asarray(v, np.float32)) for k, v in self.tensors.items()},
        }
        return _encode("weights", body)

    @classmethod
    def decode(cls, data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> "WeightsUpdate":
        kind = "weights"
        obj = _decode(data, kind, max_bytes)
        raw = _field(obj, "tensors", dict, kind)
        tensors = {}
        for name, packed in raw.items():
            a = unpack_array(packed, f"{kind}.tensors[{name!r}]")
            if a.dtype != np.float32:
                raise WireError(f"{kind}.tensors[{name!r}]: expected float32, got {a.dtype}")
            tensors[str(name)] = a
        return cls(
            policy_version=_field(obj, "policy_version", int, kind),
            contract_sha256=_field(obj, "contract_sha256", str, kind),
            tensors=tensors,
        )

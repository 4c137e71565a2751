"""Input guards for the math modules: reject non-finite values, naming the argument.

The math in `angles`, `movement` and `game_constants` takes a float or a numpy array; these
helpers check the input once and hand a float back for a float and an array for an array.
"""

import math
from collections.abc import Iterable
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
Num = TypeVar("Num", float, FloatArray)


def require_finite(name: str, value: float | FloatArray) -> None:
    """Raise ValueError naming `name` if `value` holds NaN or an infinity."""
    if isinstance(value, float | int):
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
        return
    if value.size == 1:  # one bot: a scalar test is several times cheaper than isfinite().all()
        if math.isfinite(value.item()):
            return
    elif bool(np.isfinite(value).all()):
        return
    raise ValueError(f"{name} must be finite, got a non-finite value in {value!r}")


def require_finite_fields(owner: object, names: Iterable[str], label: str) -> None:
    """require_finite for several array attributes of one object (e.g. a BotView's fields),
    naming the first bad one `label.name`. One bot per array takes a Python float test per
    field, several times cheaper than the numpy call per field of the general path."""
    for name in names:
        value = getattr(owner, name)
        if value.size == 1 and math.isfinite(value.item()):
            continue
        require_finite(f"{label}.{name}", value)


def require_not_nan(name: str, value: float | FloatArray) -> None:
    """Raise ValueError naming `name` if `value` holds NaN (infinities are allowed)."""
    if isinstance(value, float | int):
        if value != value:
            raise ValueError(f"{name} must not be NaN")
        return
    if value.size == 1:
        if value.item() == value.item():
            return
    elif not bool(np.isnan(value).any()):
        return
    raise ValueError(f"{name} must not be NaN, got {value!r}")


def like(template: Num, result: Any) -> Num:
    """Return `result` as a float when `template` is a scalar, else as a float64 array."""
    if isinstance(template, np.ndarray):
        return cast(Num, np.asarray(result, dtype=np.float64))
    scalar: Any = float(result)
    return cast(Num, scalar)

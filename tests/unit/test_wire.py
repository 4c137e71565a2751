"""Wire messages (shared/wire.py): msgpack round trips, golden bytes that catch accidental format
changes, and validation that rejects bad input with a reason before anything is unpickled."""

import hashlib

import msgpack
import numpy as np
import pytest

from tankrl.shared.wire import MAX_MESSAGE_BYTES, Trajectory, WeightsUpdate, WireError

# SHA-256 of the encodings below; a change means the wire format changed: bump WIRE_VERSION
# (or add a defaulted field) deliberately and update these.
GOLDEN_TRAJECTORY = "e4ba012a39e041ed7e6a8920cf7064b187e11906699341769637fc4c5380b718"
GOLDEN_WEIGHTS = "c0a31cd72294b33b2cf2ff33277a3742a5e582fad0e309477f1fb509b5fcf97b"


def small_trajectory() -> Trajectory:
    turns = 3
    return Trajectory(
        bot_id="native0-1",
        round_id=4,
        policy_version=9,
        contract_sha256="ab" * 32,
        obs=np.arange(turns * 2, dtype=np.float32).reshape(turns, 2) / 8,
        actions=np.array([[0.5], [-1.0], [2.0]], np.float32),
        logprobs=np.array([-1.0, -2.0, -3.0], np.float32),
        values=np.array([0.25, 0.5, 0.75], np.float32),
        rewards=np.array([1.0, 0.0, -1.5], np.float32),
        terminals=np.array([False, False, True]),
        truncations=np.zeros(turns, bool),
        bootstrap_value=0.0,
        info={"kind": "native", "won": True, "score": 61.0},
    )


def test_trajectory_round_trip_and_golden_bytes() -> None:
    t = small_trajectory()
    data = t.encode()
    back = Trajectory.decode(data)
    for name in ("obs", "actions", "logprobs", "values", "rewards", "terminals", "truncations"):
        np.testing.assert_array_equal(getattr(back, name), getattr(t, name))
    assert (back.bot_id, back.round_id, back.policy_version) == ("native0-1", 4, 9)
    assert back.info == t.info
    assert hashlib.sha256(data).hexdigest() == GOLDEN_TRAJECTORY


def test_weights_round_trip_and_golden_bytes() -> None:
    w = WeightsUpdate(3, "cd" * 32, {"log_std": np.array([0.0, -0.5], np.float32)})
    data = w.encode()
    back = WeightsUpdate.decode(data)
    np.testing.assert_array_equal(back.tensors["log_std"], [0.0, -0.5])
    assert back.policy_version == 3
    assert hashlib.sha256(data).hexdigest() == GOLDEN_WEIGHTS


def test_arrays_travel_little_endian_raw() -> None:
    obj = msgpack.unpackb(small_trajectory().encode(), raw=False)
    rewards = obj["rewards"]
    assert rewards["dtype"] == "float32" and rewards["shape"] == [3]
    assert rewards["data"] == np.array([1.0, 0.0, -1.5], "<f4").tobytes()


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda o: o.pop("rewards"), "missing field 'rewards'"),
        (lambda o: o.update(round_id="4"), "round_id"),
        (lambda o: o.update(wire=99), "wire version"),
        (lambda o: o["rewards"].update(shape=[4]), "do not fit"),
        (lambda o: o["rewards"].update(dtype="float64"), "not allowed"),
        (lambda o: o.update(kind="weights"), "expected a trajectory"),
    ],
)
def test_bad_trajectories_are_rejected_with_a_reason(mutate, reason) -> None:  # type: ignore[no-untyped-def]
    obj = msgpack.unpackb(small_trajectory().encode(), raw=False)
    mutate(obj)
    with pytest.raises(WireError, match=reason):
        Trajectory.decode(msgpack.packb(obj, use_bin_type=True))


def test_non_finite_values_garbage_and_oversize_are_rejected() -> None:
    t = small_trajectory()
    t.rewards[1] = np.nan
    with pytest.raises(WireError, match="non-finite"):
        Trajectory.decode(t.encode())
    with pytest.raises(WireError, match="not valid msgpack"):
        Trajectory.decode(b"\xc1\xc1garbage")
    with pytest.raises(WireError, match="exceeds the limit"):
        Trajectory.decode(b"\x00" * 101, max_bytes=100)
    assert MAX_MESSAGE_BYTES >= 16 * 1024 * 1024

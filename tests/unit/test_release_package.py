"""The shipped packages (weights/release/) pass the strict package validator under their
contracts (the v2 policy, the v1 baseline the README's smoothness table compares it with, the
league release v3 and the two before it on contract v4, the first league policy on contract v3)
and play: their means on a real observation are finite actions of the contract's width; v3 plays
with its goto point sampled, as its README figures were measured."""

from pathlib import Path

import numpy as np
import pytest

from tankrl.actor.native_env import NativeEnv
from tankrl.shared.contracts import V1, V2, V3, V4, Contract
from tankrl.shared.policy import NumpyPolicy
from tankrl.shared.policy_files import play_sampled_of
from tankrl.shared.policy_package import load_package

RELEASE = Path(__file__).resolve().parents[2] / "weights" / "release"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tankrl-v2.zip", V2),
        ("tankrl-v1.zip", V1),
        ("tankrl-v3.zip", V4),
        ("tankrl-v3-league7-x4.zip", V4),
        ("tankrl-v3-league4.zip", V4),
        ("tankrl-v3-aimpoint.zip", V3),
    ],
)
def test_shipped_package_is_a_valid_policy(name: str, expected: Contract) -> None:
    contract, tensors, manifest = load_package(RELEASE / name, expected)
    assert contract is expected
    assert manifest["contract_sha256"] == expected.sha256
    obs = NativeEnv(4, expected, ("SpinBot",), seed=0).reset()
    mean, value = NumpyPolicy(expected, tensors).forward(obs)
    assert mean.shape == (4, expected.action_size)
    assert np.isfinite(mean).all() and np.isfinite(value).all()


def test_the_v3_release_plays_its_movement_sampled() -> None:
    """Its figures in the README were measured so: the gun at its means, the goto point sampled."""
    contract, _, manifest = load_package(RELEASE / "tankrl-v3.zip", V4)
    assert play_sampled_of(manifest, contract) == ("goto_x", "goto_y")
    _, _, v2 = load_package(RELEASE / "tankrl-v2.zip", V2)
    assert play_sampled_of(v2, V2) == ()

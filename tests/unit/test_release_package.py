"""The shipped policy (weights/release/) passes the strict package validator as a v2 policy and
plays: its means on a real observation are finite actions of the contract's width."""

from pathlib import Path

import numpy as np

from actor.native_env import NativeEnv
from shared.contracts import V2
from shared.policy import NumpyPolicy
from shared.policy_package import load_package

RELEASE = Path(__file__).resolve().parents[2] / "weights" / "release" / "tankrl-v2.zip"


def test_shipped_package_is_a_valid_v2_policy() -> None:
    contract, tensors, manifest = load_package(RELEASE, V2)
    assert contract is V2
    assert manifest["contract_sha256"] == V2.sha256
    obs = NativeEnv(4, V2, ("SpinBot",), seed=0).reset()
    mean, value = NumpyPolicy(V2, tensors).forward(obs)
    assert mean.shape == (4, V2.action_size)
    assert np.isfinite(mean).all() and np.isfinite(value).all()

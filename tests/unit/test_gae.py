"""GAE against hand-computed numbers: a terminal in the middle (value 0 after it, the running
advantage restarts), a truncation at the end (bootstrap value), a truncation in the middle, and
several rounds computed together without leaking into each other."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tankrl.learner.gae import compute_gae, gae_for_rounds
from tankrl.learner.testing import random_tensors, synthetic_round
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy

GAMMA, LAM = 0.9, 0.5
REWARDS = [1.0, 2.0, 3.0, 4.0, 5.0]
VALUES = [0.5, 1.0, 1.5, 2.0, 2.5]


def test_terminal_in_the_middle_and_truncation_with_bootstrap_at_the_end():
    # gamma * lambda = 0.45
    # t=4 truncated: delta = 5 + 0.9*10 - 2.5 = 11.5      A4 = 11.5
    # t=3: delta = 4 + 0.9*2.5 - 2.0 = 4.25                A3 = 4.25 + 0.45*11.5 = 9.425
    # t=2: delta = 3 + 0.9*2.0 - 1.5 = 3.3                 A2 = 3.3 + 0.45*9.425 = 7.54125
    # t=1 terminal: delta = 2 + 0 - 1.0 = 1.0              A1 = 1.0 (nothing flows back past it)
    # t=0: delta = 1 + 0.9*1.0 - 0.5 = 1.4                 A0 = 1.4 + 0.45*1.0 = 1.85
    advantages, returns = compute_gae(
        REWARDS,
        VALUES,
        terminals=[False, True, False, False, False],
        truncations=[False, False, False, False, True],
        bootstrap_value=10.0,
        gamma=GAMMA,
        gae_lambda=LAM,
    )
    np.testing.assert_allclose(advantages, [1.85, 1.0, 7.54125, 9.425, 11.5], rtol=1e-6)
    np.testing.assert_allclose(returns, [2.35, 2.0, 9.04125, 11.425, 14.0], rtol=1e-6)
    assert advantages.dtype == returns.dtype == np.float32


def test_terminal_at_the_end_ignores_the_bootstrap_value():
    adv_a, _ = compute_gae([1.0, 1.0], [0.0, 0.0], [False, True], [False, False], 99.0, 0.9, 0.5)
    # t=1: delta = 1;  t=0: delta = 1 + 0.9*0 - 0 = 1, A0 = 1 + 0.45*1 = 1.45
    np.testing.assert_allclose(adv_a, [1.45, 1.0])


def test_truncation_in_the_middle_uses_the_own_value_and_restarts():
    advantages, _ = compute_gae(
        REWARDS[:2], VALUES[:2], [False, False], [False, True], 10.0, GAMMA, LAM
    )
    # last turn truncated -> bootstrap: delta1 = 2 + 9 - 1 = 10, A0 = 1.4 + 0.45*10 = 5.9
    np.testing.assert_allclose(advantages, [5.9, 10.0], rtol=1e-6)
    advantages, _ = compute_gae(
        REWARDS[:3], VALUES[:3], [False, False, True], [False, True, False], 10.0, GAMMA, LAM
    )
    # t=1 truncated mid-trajectory: next value V(s_1) = 1.0 -> delta1 = 2 + 0.9 - 1 = 1.9
    # t=0: delta0 = 1 + 0.9*1.0 - 0.5 = 1.4, A0 = 1.4 + 0.45*1.9 = 2.255; t=2: 3 - 1.5 = 1.5
    np.testing.assert_allclose(advantages, [2.255, 1.9, 1.5], rtol=1e-6)


def test_a_last_turn_without_flags_bootstraps_like_a_truncation():
    flagged, _ = compute_gae(REWARDS, VALUES, [False] * 5, [False] * 4 + [True], 3.0, GAMMA, LAM)
    bare, _ = compute_gae(REWARDS, VALUES, [False] * 5, [False] * 5, 3.0, GAMMA, LAM)
    np.testing.assert_array_equal(flagged, bare)


@given(
    rewards=st.lists(st.floats(-10, 10), min_size=1, max_size=30),
    gamma=st.floats(0.5, 1.0),
)
def test_lambda_one_gives_the_discounted_reward_to_go(rewards: list[float], gamma: float):
    n = len(rewards)
    values = np.linspace(-1.0, 1.0, n)
    terminals = [False] * (n - 1) + [True]
    _, returns = compute_gae(rewards, values, terminals, [False] * n, 0.0, gamma, 1.0)
    expected = [sum(r * gamma**k for k, r in enumerate(rewards[t:])) for t in range(n)]
    np.testing.assert_allclose(returns, expected, rtol=1e-4, atol=1e-3)


def test_rounds_computed_together_equal_rounds_computed_alone():
    policy = NumpyPolicy(V2, random_tensors(V2, seed=1))
    a = synthetic_round(V2, policy, 37, seed=1)
    b = synthetic_round(V2, policy, 23, seed=2, truncated=True)
    adv, ret = gae_for_rounds([a, b], GAMMA, LAM)
    for tr, sl in ((a, slice(0, 37)), (b, slice(37, 60))):
        one_adv, one_ret = compute_gae(
            tr.rewards, tr.values, tr.terminals, tr.truncations, tr.bootstrap_value, GAMMA, LAM
        )
        np.testing.assert_array_equal(adv[sl], one_adv)
        np.testing.assert_array_equal(ret[sl], one_ret)


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError, match="equal length"):
        compute_gae([1.0, 2.0], [0.0], [False, True], [False, False], 0.0, GAMMA, LAM)

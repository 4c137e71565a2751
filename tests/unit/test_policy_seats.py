"""Policy seats in the native env (actor/policy_seat.py): an opponent seat played by a policy
through its own Brain, as our bot plays. An arena with two policy seats (ours and a frozen copy
of the same policy) is deterministic per seed, and the two seats see mirrored observations; the
demonstrator's seat, `Expert`, is an opponent by name."""

import numpy as np
import numpy.typing as npt

from tankrl.actor.native_env import NativeEnv
from tankrl.actor.policy_seat import EXPERT, FrozenPolicy, PolicySeat
from tankrl.arena.rules.state_hash import state_hash
from tankrl.learner.testing import random_tensors
from tankrl.shared.contracts import V2
from tankrl.shared.policy import NumpyPolicy

F32 = npt.NDArray[np.float32]
POLICY = NumpyPolicy(V2, random_tensors(V2, seed=5))
FEATURES = [f.name for f in V2.features]
TURNS = 400


class Recording(FrozenPolicy):
    """The frozen policy, keeping every observation its seat decided on."""

    def __init__(self) -> None:
        super().__init__(POLICY, deterministic=True)
        self.seen: list[F32] = []

    def actions(self, obs: F32) -> F32:
        self.seen.append(obs.copy())
        return super().actions(obs)


def play(seed: int) -> tuple[list[F32], list[F32], list[str], list[tuple[bool, bool]]]:
    """Our seat (the policy's means) against a seat of the same policy, in 4 arenas."""
    twin = Recording()
    env = NativeEnv(
        4,
        V2,
        ("Twin",),
        seed=seed,
        seats={"Twin": lambda n, seeds: PolicySeat(V2, twin, n)},
    )
    rng = np.random.default_rng(0)
    ours = [env.reset()]
    hashes, scans = [], []
    for _ in range(TURNS):
        views = env.arenas.views
        scans.append((bool(views[0].scanned[0]), bool(views[1].scanned[0])))
        actions, _, _ = POLICY.act(ours[-1], rng, deterministic=True)
        ours.append(env.step(actions).obs)
        hashes.append(state_hash(env.arenas.engine, 0))
    return ours[:-1], twin.seen, hashes, scans


def test_two_policy_seats_are_deterministic_per_seed() -> None:
    a, b, c = play(11), play(11), play(12)
    assert a[2] == b[2] and all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert all(np.array_equal(x, y) for x, y in zip(a[1], b[1], strict=True))
    assert a[2] != c[2]


def test_the_two_seats_see_mirrored_observations() -> None:
    ours, theirs, _, scans = play(11)
    idx = {name: FEATURES.index(name) for name in FEATURES}
    mirrored = 0
    for mine, other, (we_scan, they_scan) in zip(ours, theirs, scans, strict=True):
        if not (we_scan and they_scan):
            continue  # the enemy estimate is exact on a turn it was scanned
        mirrored += 1
        pairs = [("own_x", "enemy_x"), ("own_y", "enemy_y"), ("own_energy", "enemy_energy"),
                 ("own_speed", "enemy_speed")]  # fmt: skip
        for own, enemy in pairs:
            assert mine[0, idx[own]] == other[0, idx[enemy]], own
            assert mine[0, idx[enemy]] == other[0, idx[own]], enemy
        assert mine[0, idx["enemy_distance"]] == other[0, idx["enemy_distance"]]
    assert mirrored > TURNS // 2


def test_the_expert_is_an_opponent_by_name() -> None:
    env = NativeEnv(2, V2, (EXPERT, "SpinBot"), seed=3)
    env.reset()
    for _ in range(50):
        env.step(np.zeros((2, V2.action_size), np.float32))
    assert list(env.opponent_names) == [EXPERT, "SpinBot"]
    assert env.arenas.views[1].speed[0] != 0.0  # the Expert's seat drives

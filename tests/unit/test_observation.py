"""actor.observation: 44-dim (v2) and 42-dim (v1) observations with hand-checked values, the
command feedback features (remaining goto distance / diagonal, remaining gun angle / 180), that
the encoder follows the contract table (and refuses raw keys it does not know), and a property
test: finite and within each feature's bounds for any finite game state."""

import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tankrl.actor.actions import Targets
from tankrl.actor.observation import ObservationEncoder
from tankrl.actor.tracker import EnemyTracker
from tankrl.shared.botview import VIEW_DTYPES, BotView
from tankrl.shared.contracts import V1, V2, Contract, ContractError, Feature, Normaliser

ViewFactory = Callable[..., BotView]
NAMES = {c.name: [f.name for f in c.features] for c in (V1, V2)}


def encode(contract: Contract, view: BotView, scan: BotView | None = None,
           targets: Targets | None = None) -> np.ndarray:  # fmt: skip
    encoder = ObservationEncoder(contract, view.size)
    tracker = EnemyTracker(view.size)
    tracker.update(scan if scan is not None else view)
    return encoder.encode(view, tracker, targets or Targets(view.size))


@pytest.mark.parametrize(("contract", "size"), [(V2, 44), (V1, 42)], ids=["v2", "v1"])
def test_shape_and_dtype(make_view: ViewFactory, contract: Contract, size: int) -> None:
    obs = encode(contract, make_view(3))
    assert obs.shape == (3, size) and obs.dtype == np.float32
    assert np.isfinite(obs).all()


def test_values_of_a_known_state(make_view: ViewFactory) -> None:
    view = make_view(
        x=100.0, y=450.0, speed=-4.0, energy=80.0, gun_heat=1.5, direction=30.0,
        gun_direction=0.0, turn_rate=-5.0, scanned=True, scan_x=400.0, scan_y=50.0,
        scan_speed=6.0, scan_energy=120.0, scan_direction=270.0,
    )  # fmt: skip
    obs = dict(zip(NAMES["v2"], encode(V2, view)[0].tolist(), strict=True))
    expected = {
        "own_x": 100 / 800, "own_y": 450 / 600, "own_speed": -0.5, "own_energy": 0.8,
        "own_gun_heat": 0.5, "own_heading_sin": 0.5, "own_heading_cos": math.sqrt(3) / 2,
        "enemy_x": 0.5, "enemy_y": 50 / 600, "enemy_speed": 0.75, "enemy_energy": 1.0,
        "enemy_heading_sin": -1.0, "enemy_heading_cos": 0.0, "enemy_fire_power": 0.0,
        "own_acceleration": -1.0, "own_turn_rate": -0.5,
        "enemy_gun_bearing": math.degrees(math.atan2(-400, 300)) / 180,
        "enemy_distance": 500 / 1000,
        "wall_left": 82 / 200, "wall_right": 1.0, "wall_bottom": 1.0, "wall_top": 132 / 200,
        "enemy_x_t-1": 0.5, "enemy_y_t-1": 0.5, "enemy_speed_t-1": 0.0, "enemy_energy_t-1": 1.0,
        "goto_remaining": 0.0, "gun_remaining": 0.0,
    }  # fmt: skip
    for name, value in expected.items():
        assert obs[name] == pytest.approx(value, abs=1e-6), name


def test_v1_is_v2_without_the_command_feedback(make_view: ViewFactory) -> None:
    view = make_view(3, x=[50.0, 400.0, 790.0], speed=[-8.0, 0.0, 5.0], scanned=True,
                     scan_x=[600.0, 20.0, 410.0], scan_energy=[12.0, 100.0, 55.5])  # fmt: skip
    np.testing.assert_array_equal(encode(V1, view), encode(V2, view)[:, :42])


def test_goto_and_gun_remaining_feedback(make_view: ViewFactory) -> None:
    view = make_view(2, x=[100.0, 400.0], y=[100.0, 300.0], gun_direction=[0.0, 90.0])
    targets = Targets(2)
    assert np.all(encode(V2, view, targets=targets)[:, 42:] == 0.0)  # before the first decision
    targets.goto_x[:], targets.goto_y[:] = [400.0, 0.0], [500.0, 0.0]
    targets.aim_x[:], targets.aim_y[:] = [100.0, 400.0], [200.0, 200.0]  # 90 left; behind
    targets.active[:] = True
    obs = encode(V2, view, targets=targets)
    np.testing.assert_allclose(obs[:, 42], [500 / 1000, 500 / 1000], rtol=1e-6)
    np.testing.assert_allclose(obs[:, 43], [0.5, 1.0], rtol=1e-6)


def test_extreme_energies_and_walls_are_clipped(make_view: ViewFactory) -> None:
    view = make_view(2, energy=[250.0, -3.0], x=[-50.0, 5000.0], scanned=True,
                     scan_energy=[1e6, -20.0])  # fmt: skip
    obs = dict(zip(NAMES["v1"], encode(V1, view).T.tolist(), strict=True))
    assert obs["own_energy"] == [1.0, 0.0]
    assert obs["enemy_energy"] == [1.0, 0.0]
    assert obs["own_x"] == [0.0, 1.0]
    assert obs["wall_left"] == [0.0, 1.0] and obs["wall_right"] == [1.0, 0.0]


def test_encoder_follows_the_contract_table(make_view: ViewFactory) -> None:
    view = make_view(speed=2.0)
    i = NAMES["v2"].index("own_speed")
    halved = dataclasses.replace(V2.features[i], norm=Normaliser("scale", 4.0))
    edited = dataclasses.replace(V2, features=(*V2.features[:i], halved, *V2.features[i + 1 :]))
    assert encode(V2, view)[0, i] == pytest.approx(0.25)
    assert encode(edited, view)[0, i] == pytest.approx(0.5)


def test_unknown_raw_key_or_normaliser_fails_at_construction() -> None:
    extra = Feature("enemy_gun_heat", "enemy.gun_heat", Normaliser("scale", 3.0))
    with pytest.raises(ContractError, match=r"enemy\.gun_heat"):
        ObservationEncoder(dataclasses.replace(V2, features=(*V2.features, extra)), 1)
    bad_divisor = Feature("own_x", "own.x", Normaliser("scale", "arena_depth"))
    with pytest.raises(ContractError, match="arena_depth"):
        ObservationEncoder(dataclasses.replace(V2, features=(bad_divisor, *V2.features[1:])), 1)


FINITE = st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False)
REALISTIC = st.floats(-1000.0, 1000.0, allow_nan=False)
N_BOTS = 3


@st.composite
def views(draw: st.DrawFn) -> BotView:
    view = BotView.zeros(N_BOTS)
    values = st.one_of(REALISTIC, FINITE)
    for name, dtype in VIEW_DTYPES.items():
        if dtype is np.float64:
            elements = st.floats(1.0, 1e6) if name.startswith("arena") else values
            getattr(view, name)[:] = draw(arrays(np.float64, N_BOTS, elements=elements))
        elif dtype is np.bool_:
            getattr(view, name)[:] = draw(arrays(np.bool_, N_BOTS))
        else:
            getattr(view, name)[:] = draw(arrays(np.int32, N_BOTS, elements=st.integers(0, 10**6)))
    return view


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ticks=st.lists(views(), min_size=1, max_size=3),
    targets=arrays(np.float64, (4, N_BOTS), elements=FINITE),
    active=arrays(np.bool_, N_BOTS),
)
def test_observation_is_finite_and_within_bounds(
    ticks: list[BotView], targets: np.ndarray, active: np.ndarray
) -> None:
    for contract in (V2, V1):
        tracker, encoder, command = (
            EnemyTracker(N_BOTS),
            ObservationEncoder(contract, N_BOTS),
            Targets(N_BOTS),
        )
        command.goto_x[:], command.goto_y[:], command.aim_x[:], command.aim_y[:] = targets
        command.active[:] = active
        lo = np.array([-1.0 if f.norm.kind != "scale" else f.norm.lo for f in contract.features])
        hi = np.array([1.0 if f.norm.kind != "scale" else f.norm.hi for f in contract.features])
        with np.errstate(over="ignore"):
            for view in ticks:
                tracker.update(view)
                obs = encoder.encode(view, tracker, command)
                assert np.isfinite(obs).all()
                assert np.all(obs >= lo) and np.all(obs <= hi)
        distances = [i for i, f in enumerate(contract.features) if "distance" in f.raw]
        assert np.all(obs[:, distances] >= 0.0) and np.all(obs[:, distances] <= 1.0)

"""shared.contracts: sizes and ids of v1/v2, the id changes with any single edit of the tables,
and `tankrl contract show` prints what a user needs to compare contracts."""

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tankrl.shared.contracts import V1, V2, ActionDim, Contract, Feature, Normaliser, get_contract

REPO = Path(__file__).resolve().parents[2]


def test_sizes() -> None:
    assert (V2.obs_size, V2.action_size) == (44, 6)
    assert (V1.obs_size, V1.action_size) == (42, 5)


def test_ids_are_sha256_and_differ() -> None:
    for c in (V1, V2):
        assert re.fullmatch(r"[0-9a-f]{64}", c.sha256)
        assert get_contract(c.sha256) is c
    assert V1.sha256 != V2.sha256


def _feature_edits(f: Feature) -> list[Feature]:
    n = f.norm
    edits = [dataclasses.replace(f, name=f.name + "_x"), dataclasses.replace(f, raw=f.raw + " + 1")]
    if n.kind == "scale":
        divisor = n.divisor + "_x" if isinstance(n.divisor, str) else n.divisor * 2.0
        norms = [
            dataclasses.replace(n, kind="sin"),
            dataclasses.replace(n, divisor=divisor),
            dataclasses.replace(n, lo=n.lo - 0.5),
            dataclasses.replace(n, hi=n.hi + 0.5),
        ]
    else:  # sin/cos ignore divisor and bounds, in the text and in the encoder
        norms = [
            dataclasses.replace(n, kind="cos" if n.kind == "sin" else "sin"),
            Normaliser("scale", 1.0),
        ]
    return edits + [dataclasses.replace(f, norm=m) for m in norms]


def _action_edits(a: ActionDim) -> list[ActionDim]:
    scale = a.scale + "_x" if isinstance(a.scale, str) else a.scale * 2.0
    return [
        dataclasses.replace(a, name=a.name + "_x"),
        dataclasses.replace(a, squash="tanh" if a.squash == "sigmoid" else "sigmoid"),
        dataclasses.replace(a, scale=scale),
        dataclasses.replace(a, offset=a.offset + 0.5),
    ]


@pytest.mark.parametrize("contract", [V1, V2], ids=["v1", "v2"])
def test_any_single_edit_changes_the_id(contract: Contract) -> None:
    ids = {contract.sha256}
    edited: list[Contract] = [dataclasses.replace(contract, decoder=contract.decoder + ".")]
    for i, f in enumerate(contract.features):
        for g in _feature_edits(f):
            features = (*contract.features[:i], g, *contract.features[i + 1 :])
            edited.append(dataclasses.replace(contract, features=features))
    for i, a in enumerate(contract.actions):
        for b in _action_edits(a):
            actions = (*contract.actions[:i], b, *contract.actions[i + 1 :])
            edited.append(dataclasses.replace(contract, actions=actions))
    for c in edited:
        assert c.sha256 not in ids, c.canonical_text()
        ids.add(c.sha256)
    assert len(ids) == len(edited) + 1


@pytest.mark.parametrize(("name", "features", "dims"), [("v2", 44, 6), ("v1", 42, 5)])
def test_cli_contract_show(name: str, features: int, dims: int) -> None:
    exe = Path(sys.executable).with_name("tankrl")
    result = subprocess.run(
        [str(exe), "contract", "show", name],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=60,
    )
    out = result.stdout
    contract = get_contract(name)
    assert contract.sha256 in out
    assert f"observation: {features} floats" in out
    assert f"actions: {dims} dims" in out
    for f in contract.features:
        assert f.name in out
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+\s+\S", line)]
    assert len(rows) == features + dims

"""Parsing the RunConfig, in exactly one place: defaults, then a named config (deploy/configs/
<name>.json or any JSON file), then one flag per field (`--ppo.learning-rate 1e-3`), generated
from the dataclass tree with each field's help text. Cross-field errors are ConfigErrors.
"""

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from tankrl.shared.config import ConfigError, RunConfig

CONFIG_DIR = Path(__file__).parent / "configs"


def named_configs() -> list[str]:
    return sorted(p.stem for p in CONFIG_DIR.glob("*.json"))


def _fields(cls: type, prefix: str = "") -> list[tuple[str, dataclasses.Field[Any], Any]]:
    """(dotted name, field, default) of every leaf field of a config dataclass tree."""
    out = []
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
            if dataclasses.is_dataclass(default):
                out += _fields(type(default), f"{prefix}{f.name}.")
                continue
        out.append((prefix + f.name, f, f.default))
    return out


def _parse_bool(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false, got {text!r}")


def _converter(default: Any) -> Any:
    if isinstance(default, bool):
        return _parse_bool
    if isinstance(default, tuple):
        return lambda text: tuple(x.strip() for x in text.split(",") if x.strip())
    return type(default)


def add_config_args(parser: argparse.ArgumentParser) -> None:
    """--config plus one option per config field (all default to "not given")."""
    parser.add_argument(
        "--config",
        default="default",
        help=f"named config ({', '.join(named_configs())}) or a JSON file; flags override it",
    )
    group = parser.add_argument_group("configuration (RunConfig fields)")
    for name, f, default in _fields(RunConfig):
        flag = "--" + name.replace("_", "-")
        shown = ",".join(default) if isinstance(default, tuple) else default
        group.add_argument(
            flag,
            dest="cfg:" + name,
            type=_converter(default),
            default=None,
            metavar=type(default).__name__.upper() if not isinstance(default, tuple) else "A,B",
            help=f"{f.metadata.get('help', '')} (default {shown})",
        )


def _set(tree: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for p in parents:
        tree = tree.setdefault(p, {})
    tree[leaf] = value


def load_named(name: str) -> dict[str, Any]:
    path = Path(name)
    if not path.suffix:
        path = CONFIG_DIR / f"{name}.json"
    if not path.is_file():
        raise ConfigError(
            f"no config {name!r}: use one of {', '.join(named_configs())} or a path to a JSON file"
        )
    data: dict[str, Any] = json.loads(path.read_text())
    data.pop("description", None)
    return data


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def resolve(args: argparse.Namespace) -> RunConfig:
    """The RunConfig from --config and the per-field flags, validated."""
    data = _merge(RunConfig().to_dict(), load_named(args.config))
    for key, value in vars(args).items():
        if key.startswith("cfg:") and value is not None:
            _set(data, key[4:], value)
    return RunConfig.from_dict(data).validate()


def describe(cfg: RunConfig) -> str:
    """The fields that differ from the defaults, one per line (for logs)."""
    default = {n: d for n, _, d in _fields(RunConfig)}
    flat: dict[str, Any] = {}

    def walk(d: dict[str, Any], prefix: str) -> None:
        for k, v in d.items():
            if isinstance(v, dict):
                walk(v, f"{prefix}{k}.")
            else:
                flat[prefix + k] = tuple(v) if isinstance(v, list) else v

    walk(cfg.to_dict(), "")
    changed = [f"{k}={v}" for k, v in flat.items() if default.get(k) != v]
    return ", ".join(changed) if changed else "all defaults"

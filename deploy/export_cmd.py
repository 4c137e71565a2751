"""`tankrl export RUN --out policy.zip`: write a run's policy (latest/ or a checkpoint) as a
validated policy package (learner/package.py) and print what was written."""

import argparse
from pathlib import Path
from typing import Any


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    """Add `tankrl export`."""
    p = sub.add_parser("export", help="write a run's policy as a policy package (zip)")
    p.add_argument("run", metavar="RUN", help="a run name under --weights-dir, or a run dir path")
    p.add_argument("--out", required=True, type=Path, help="the zip to write, e.g. policy.zip")
    p.add_argument("--weights-dir", default="weights", type=Path, help="where runs live")
    p.add_argument(
        "--from",
        dest="source",
        default="latest",
        help="which policy dir of the run: latest (default) or checkpoint_N",
    )
    p.set_defaults(handler=lambda args: export(args.run, args.out, args.weights_dir, args.source))


def resolve_run(run: str, weights_dir: Path) -> Path:
    """A run dir path as given if it exists and is not a bare name, else weights_dir/RUN."""
    path = Path(run)
    if path.is_dir() and (len(path.parts) > 1 or not (weights_dir / run).is_dir()):
        return path
    return weights_dir / run


def export(run: str, out: Path, weights_dir: Path, source: str = "latest") -> int:
    """Export and re-validate the package; print what was written (exit code 0) or why not (2)."""
    from tankrl.learner.package import PackageError, export_package, load_package

    run_dir = resolve_run(run, weights_dir)
    if not run_dir.is_dir():
        print(f"error: no run {run!r}: {run_dir} is not a directory")
        return 2
    try:
        done = export_package(run_dir, out, source)
        load_package(done.path, done.contract)  # the written zip passes the strict validator
    except PackageError as e:
        print(f"error: {e}")
        return 2
    print(f"wrote {done.path} from {done.source}")
    print(f"  contract        {done.contract.name} ({done.contract.sha256})")
    print(f"  policy_version  {done.policy_version}")
    print(f"  tensors         {done.tensors}")
    print(f"  size            {done.bytes} bytes, sha256 {done.sha256}")
    return 0

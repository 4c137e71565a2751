"""`tankrl contract show NAME`: print a contract's features, action dims and SHA-256 id."""

import argparse
from typing import Any

from tankrl.shared.contracts import ContractError, get_contract


def register(sub: "argparse._SubParsersAction[Any]") -> None:
    contract = sub.add_parser("contract", help="inspect observation/action contracts")
    contract.set_defaults(handler=lambda args: _usage(contract))
    actions = contract.add_subparsers(dest="contract_command", metavar="ACTION")
    show_p = actions.add_parser("show", help="print a contract's features, actions and id")
    show_p.add_argument("name", help="contract name (v1, v2) or its SHA-256")
    show_p.set_defaults(handler=lambda args: show(args.name))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def show(name: str) -> int:
    try:
        contract = get_contract(name)
    except ContractError as e:
        print(f"error: {e}")
        return 2
    print(f"contract {contract.name}")
    print(f"id       {contract.sha256}")
    print(f"decoder  {contract.decoder}")
    print(f"\nobservation: {contract.obs_size} floats")
    for i, f in enumerate(contract.features):
        print(f"  {i:2d}  {f.name:<20} {f.raw:<36} {f.norm.text()}")
    print(f"\nactions: {contract.action_size} dims")
    for i, a in enumerate(contract.actions):
        print(f"  {i:2d}  {a.name:<20} {a.text()}")
    return 0

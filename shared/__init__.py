"""The contract between every part of tankrl: game math, contracts, views, intents, policy, wire.

Pure code only: numpy and msgpack, never ray, torch, websockets or the Bot API.
"""

if __name__ != "tankrl.shared":  # imported from the repository's root as a top-level package
    raise ImportError(
        f"import tankrl.shared, not {__name__}: tankrl installs one namespace, tankrl"
    )

"""Our Tank Royale: the rules engine, scripted opponents, replays, the WebSocket server speaking the
official protocol, and the native vectorised env."""

if __name__ != "tankrl.arena":  # imported from the repository's root as a top-level package
    raise ImportError(f"import tankrl.arena, not {__name__}: tankrl installs one namespace, tankrl")

"""The bot side: the per-turn brain (tracker, observation, actions, controllers, reward), the
trajectory recorder, the hosted bot (Bot API shell), the native actor and their Ray shells."""

if __name__ != "tankrl.actor":  # imported from the repository's root as a top-level package
    raise ImportError(f"import tankrl.actor, not {__name__}: tankrl installs one namespace, tankrl")

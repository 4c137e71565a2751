"""PPO: the torch actor/critic, GAE and loss, the inbox with its staleness rules, checkpoints and
policy packages, metrics, and the LearnerActor Ray shell."""

if __name__ != "tankrl.learner":  # imported from the repository's root as a top-level package
    raise ImportError(
        f"import tankrl.learner, not {__name__}: tankrl installs one namespace, tankrl"
    )

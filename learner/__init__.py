"""PPO: the torch actor/critic, GAE and loss, the inbox with its staleness rules, checkpoints and
policy packages, metrics, and the LearnerActor Ray shell."""

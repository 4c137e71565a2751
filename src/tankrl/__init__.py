"""tankrl: a distributed PPO trainer for Robocode Tank Royale bots.

One import namespace over the repository's top-level folders (each a symlink here):
`tankrl.shared` (contracts, game math, wire messages, config), `tankrl.arena` (the rules engine
and our Tank Royale server), `tankrl.actor` (the bots), `tankrl.learner` (PPO on Ray) and
`tankrl.deploy` (the `tankrl` command line). `python -m tankrl` runs the command line.
"""

"""tankrl's benchmarks: native_env, decision, bot_turn, learner_pass, hosted, server_ab and
time_to_skill each time one part of the system, print a table and, as their last line, one JSON
object built by bench/judge.py (the figures, the machine's yardstick, each target scaled to this
machine's speed and whether it was met). Run one from the repository root as
`python -m bench.NAME` (`--help` for its flags); `make bench` runs them all with their default
flags, keeps their output under tmp/bench/ and writes bench/results.md with
`python -m bench.results`.
"""

from tankrl.actor.ppo_bot import run_from_env

run_from_env()

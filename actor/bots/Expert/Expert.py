from tankrl.actor.botapi_shell import run_scripted

run_scripted("Expert")

from actor.botapi_shell import run_scripted

run_scripted("TrackFire")

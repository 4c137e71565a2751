"""Our Tank Royale server: the official WebSocket protocol on the rules engine, so official Bot
API bots play on it unchanged. `protocol` and `intent_merge` read what clients send, `messages`
and `ticks` build what the server sends; `lobby` and `game` are the state machine without I/O;
`server` is the shell that owns connections, with `outbox` (writing to clients), `waiting`,
`observer_batch` and `handoff` (the turn loop's parts) and `game_loop`; `thread` runs a server
for synchronous callers; `booter` starts bot directories as processes and `battle` runs one
battle as a controller, as `tankrl battle` does.
"""

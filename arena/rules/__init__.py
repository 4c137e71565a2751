"""The rules engine: B arenas of N bots stepped together on preallocated arrays, deterministic for
a seed. `state` holds the arrays; `motion`, `radar`, `bullets`, `collisions` and `scoring` are
the compiled (numba) rules of docs/rules.md, which `turn` calls in the order of §9; `engine`
drives a turn and a round's start and end; `native` plays many 1v1 arenas in-process for
training; `views` turns the state into what each seat sees. The server, the native env and the
replay re-simulator all step this one engine.
"""

"""Our Tank Royale: the rules engine, scripted opponents, replays, the WebSocket server speaking the
official protocol, and the native vectorised env."""

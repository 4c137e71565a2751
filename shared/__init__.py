"""The contract between every part of tankrl: game math, contracts, views, intents, policy, wire.

Pure code only: numpy and msgpack, never ray, torch, websockets or the Bot API.
"""

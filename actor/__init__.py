"""The bot side: the per-turn brain (tracker, observation, actions, controllers, reward), the
trajectory recorder, the hosted bot (Bot API shell), the native actor and their Ray shells."""

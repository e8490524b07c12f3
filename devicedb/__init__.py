"""devicedb: the real device-model service (HTTP + SQLite) behind the tutorial's ADD_MODEL_URL."""

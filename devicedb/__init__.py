"""devicedb: the device-model service behind ADD_MODEL_URL (HTTP; SQLite, or Postgres by DATABASE_URL)."""

"""Tests of the device service behind ADD_MODEL_URL (devicedb/)."""

"""The agent over HTTP: an OpenAI-compatible face and an AG-UI face, API keys, stored conversations."""

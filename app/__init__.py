"""app: the application around the agent, one folder per install extra — the terminal chat, the models,
MCP both ways, the agent over HTTP — and the composition root (`host.py`) that builds them all."""

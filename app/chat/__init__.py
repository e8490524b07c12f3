"""The terminal app around ChatAgent: the console (rich or plain), slash commands and saved sessions."""

"""The MCP server side, for any ToolRegistry: tools (`tools.py`), prompts and resources given to it
(`prompts.py`, `resources.py`), subscriptions to resources (`subscriptions.py`) and their bounds
(`subscribers.py`, `settings.py`), a tool's channel to the client (`channel.py`), resumable HTTP
(`events.py`), the server itself on stdio or streamable HTTP (`serve.py`), and this project's server
(`python -m app.mcp_server`, `__main__.py`) with its device models and tasks."""

"""The MCP server side, for any ToolRegistry: tools (`tools.py`), prompts and resources given to it
(`prompts.py`, `resources.py`), a tool's channel to the client (`channel.py`), resumable HTTP
(`events.py`), and the server itself on stdio or streamable HTTP (`serve.py`)."""

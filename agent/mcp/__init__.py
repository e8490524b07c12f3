"""MCP, both ways: the client (connections to the servers of MCP_CONFIG, the toolset that registers their
tools beside local ones, OAuth, elicitation) and `server/`, which serves any ToolRegistry over MCP."""

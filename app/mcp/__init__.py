"""The MCP client: connections to the servers of MCP_CONFIG, the toolset that registers their tools beside
local ones, OAuth and elicitation. The server side is `app/mcp_server/`."""

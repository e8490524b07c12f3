"""MCP on the client side: connections to the servers of MCP_CONFIG, and the toolset that
registers their tools in the same ToolRegistry as local tools."""

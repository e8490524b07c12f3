"""Tests of our MCP server (app/mcp_server/)."""

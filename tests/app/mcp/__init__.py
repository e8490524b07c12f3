"""Tests of the MCP client (app/mcp/)."""

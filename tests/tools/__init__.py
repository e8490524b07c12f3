"""Tests of the concrete tools (tools/)."""

"""Tests of the core, agent/: the loop, the registry, the wrapper and its wire, the host's rules."""

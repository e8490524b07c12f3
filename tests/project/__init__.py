"""The project as a newcomer meets it: the README, the docs, the quick start, the core installed
alone, traces end to end."""

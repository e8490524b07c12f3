"""agent: the framework of the tutorial's chapter 5, one file per concept (see the README's map)."""

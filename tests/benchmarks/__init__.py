"""The benchmarks' own parts: the evaluation's prompt files and how they are read."""

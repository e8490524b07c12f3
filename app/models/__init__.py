"""Which model runs: the provider factory and its `ModelChoice`, and the embedded demo model as one
plug-in (`embedded/`)."""

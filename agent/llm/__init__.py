"""Everything between the agent loop and a model endpoint: HTTP transport, streaming, tool-call
normalization, the provider factory, the ChatOpenAI backend and the embedded local model."""

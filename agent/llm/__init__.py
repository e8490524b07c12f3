"""The wire to a model endpoint: HTTP transport and retries, the request JSON, streaming, the one
normalization of model tool calls, structured output, and the ChatOpenAI backend."""

"""Attacks through the whole host: injection cases, and AgentDojo (benchmarks/agentdojo_*)."""

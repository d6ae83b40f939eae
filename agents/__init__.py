"""shopsim.agents."""

"""shopsim.simsite."""

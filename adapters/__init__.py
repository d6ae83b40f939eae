"""shopsim.adapters."""

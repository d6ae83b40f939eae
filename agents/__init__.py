"""Agents, and what runs and judges them.

The policies live here, one module each (``rule``, ``random_agent``, ``heuristic``, ``heuristic_v8``,
``llm``, ``human``; ``registry`` finds them by name), beside ``episode`` (the one episode loop) and
``base`` (the protocol). Three rooms build on them, each importing only the rooms before it:
:mod:`~shopsim.agents.reports` < :mod:`~shopsim.agents.transfer` < :mod:`~shopsim.agents.evaluation`.
"""

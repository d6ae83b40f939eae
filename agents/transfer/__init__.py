"""Sim-to-real transfer: an agent on replayed real-site bundles, the transfer suite, and goals for replays.

Uses the policies and :mod:`shopsim.agents.reports`; :mod:`shopsim.agents.evaluation` builds on it.
"""

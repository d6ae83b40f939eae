"""Evaluation runs: ``shopsim eval``'s runner, its local and Ray workers, run configuration and run files.

The top room of ``agents``: it may use the policies, :mod:`shopsim.agents.reports` and
:mod:`shopsim.agents.transfer`; none of them imports it.
"""

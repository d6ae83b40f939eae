"""ShopSimulator v8's contract: ``observation_state``, its text rendering and the two-tool action protocol.

The shop side of the profile (catalog, search, sessions, service) lives in :mod:`shopsim.simsite.v8`.
"""

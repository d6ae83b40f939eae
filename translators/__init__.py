"""Translators: turn real or simulated shop pages into PageState and actions into navigations."""

from shopsim.translators.scan_build import install as _install_scan_finder

_install_scan_finder()  # SHOPSIM_PURE_SCAN=1 (or no working compiled build) loads the guard's pure modules

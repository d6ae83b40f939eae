"""Translators: turn real or simulated shop pages into PageState and actions into navigations."""

"""The ``claudeops`` command line.

``group`` builds the ``claudeops`` click group after the config and plugins load, and holds
``main``, the console script (``claudeops.cli:main``); ``context`` holds what every command
shares (core and plugin commands alike); ``run``, ``sessions`` and ``doctor`` are the core's
commands with their own modules; ``progress`` is the live line a terminal run shows.
"""

from claudeops.cli.group import main

__all__ = ["main"]

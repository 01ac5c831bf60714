"""``python -m claudeops`` is the same as the ``claudeops`` command."""

from claudeops.cli.group import main

if __name__ == "__main__":
    main()

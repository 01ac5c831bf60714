"""The version of claudeops, in a module of its own so that core modules can read it without
importing the plugin API package (``claudeops/__init__.py``) and closing an import circle."""

__version__ = "0.1.0"

"""Small built-in plugins that live with the core (llm's name for the folder).

Each is an ordinary plugin module, registered from ``claudeops.plugins.DEFAULT_PLUGINS`` under
its historical name (``claudeops.environment``, ``claudeops.escalation``), so ``plugins.disable``
settings written for earlier versions keep working.
"""

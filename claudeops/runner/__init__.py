"""The session runner: one session and its escalation chain, live or replayed.

Entry points: :func:`claudeops.runner.chain.execute` (``claudeops run``: lock, signals, exit
code) and :func:`claudeops.runner.chain.run_chain` (tests and fixtures: the store already open).
This package imports nothing itself: importing the SDK costs about half a second, which only a
command that runs a session should pay (``doctor`` reads :mod:`~claudeops.runner.prompts`
without it).

* ``chain`` strings sessions together; ``session_run`` drives one through the SDK;
* ``stream`` dispatches messages to hooks and markers; ``options`` builds the SDK options;
* ``prompts`` finds tier prompts; ``failures`` words why a session ended badly;
* ``transcript`` keeps the raw stream; ``lock`` is the per-state-dir run lock;
* ``credentials`` checks what a real run needs; ``replay`` and ``script`` stand in for the CLI;
* ``sdk`` is the only importer of the SDK's private modules.
"""

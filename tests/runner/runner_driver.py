"""``claudeops`` as a subprocess with the core plugins plus the runner tests' recording plugin.

The end-to-end tests start this instead of the console script so the subprocess stores
``[NOTE]`` markers (see ``runner_helpers``) without depending on the feature plugins; the
command line, the run command and the runner are the real ones.
"""

from __future__ import annotations

import sys

from runner_helpers import CORE_ONLY, RecordingPlugin

from claudeops.app import App
from claudeops.cli.group import run_cli

if __name__ == "__main__":
    app = App.load(None, entry_points=False, builtins=CORE_ONLY, extra_plugins=[RecordingPlugin()])
    run_cli(app, None, sys.argv[1:])

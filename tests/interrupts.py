"""Starting a child that Ctrl-C reaches, whatever SIGINT disposition pytest inherited.

A process started with SIGINT ignored (under ``nohup``, ``cmd &`` in a script, some CI runners)
passes the ignoring on to its children, and Python then installs no KeyboardInterrupt handler: a
SIGINT sent to the child does nothing. ``subprocess.Popen(..., preexec_fn=default_sigint)``
gives the child SIGINT's default action back before it starts, as a terminal would.
"""

import signal


def default_sigint():
    """Run in the child between fork and exec: SIGINT takes its default action again."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

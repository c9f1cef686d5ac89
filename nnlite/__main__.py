"""``python -m nnlite``: the ``nnlite`` command (see ``nnlite/cli.py``)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Train a model from a YAML config.

    python train.py CONFIG.yaml [--set key.path=value ...] [--resume RUN_DIR]

See configs/ for examples and docs/guides/trainer.md for the config reference.
"""

import sys

from nnlite.report import TrainingObserver
from nnlite.train.cli import main

if __name__ == "__main__":
    sys.exit(main(observers=[TrainingObserver()]))  # RUN_DIR/report.html after every epoch

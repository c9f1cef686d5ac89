"""``status.json``: what a run is doing (running, finished, interrupted, stopped on a NaN loss,
failed), written by the training process each time it changes, and how a page words it."""

import datetime
import os
import socket
from typing import TYPE_CHECKING, Any

from .run_folder import write_json_atomic

if TYPE_CHECKING:
    from .run_folder import RunFolder

__all__ = ["STATES", "describe", "write_status"]

#: state -> (headline, CSS class of the banner)
STATES = {
    "running": ("Running", "running"),
    "finished": ("Finished", "finished"),
    "interrupted": ("Interrupted", "stopped"),
    "nonfinite": ("Stopped: the loss became NaN or infinite", "stopped"),
    "failed": ("Failed", "stopped"),
    "unknown": ("No status recorded", "running"),
}


def write_status(run_dir: str, state: str, message: str | None = None) -> None:
    """Record the run's state in ``run_dir/status.json`` (atomically)."""
    if state not in STATES:
        raise ValueError(f"unknown run state {state!r}, expected one of {', '.join(STATES)}")
    write_json_atomic(
        {
            "state": state,
            "message": message,
            "updated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "pid": os.getpid(),
            "host": socket.gethostname(),
        },
        os.path.join(run_dir, "status.json"),
    )


def _process_gone(status: dict[str, Any]) -> bool:
    """A 'running' status whose process no longer exists on this machine (killed without a word)."""
    pid, host = status.get("pid"), status.get("host")
    if not isinstance(pid, int) or host != socket.gethostname() or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def describe(run: "RunFolder") -> tuple[str, str, str]:
    """``(headline, css class, detail text)`` of a ``RunFolder``'s state."""
    state = run.state
    status = run.status or {}
    headline, css = STATES.get(state, STATES["unknown"])
    done = len(run.epochs)
    detail = f"{done} of {run.total_epochs} epochs done"
    if status.get("updated"):
        detail += f"; updated {status['updated']}"
    if state == "running":
        if _process_gone(status):
            headline, css = "Stopped (the training process is gone)", "stopped"
        else:
            detail += "; this page reloads itself every 30 s"
    if status.get("message"):
        detail += f". {status['message']}"
    if state in ("interrupted", "nonfinite", "failed") and run.checkpoint:
        detail += f" Continue with: python train.py --resume {run.path}"
    return headline, css, detail

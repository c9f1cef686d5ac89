"""nnlite._runtime.worker_channel: framing, a parent that never blocks, one wait with a deadline."""

import multiprocessing
import os
import pickle
import signal
import time

import numpy as np
import pytest

from nnlite._runtime.worker_channel import ChannelClosed, WorkerChannel, encode, wait

ctx = multiprocessing.get_context("fork")


def _echo(end):
    """Send back every message until the channel closes; "stop" ends the worker."""
    end.open()
    try:
        while True:
            message = end.receive()
            if message == "stop":
                return
            end.send(message)
    except ChannelClosed:
        pass


def _die_now(end):
    end.open()
    end.receive()
    os.kill(os.getpid(), signal.SIGKILL)


def _sleep_in_grandchild(end):
    """Leave a process holding the result pipe open, then die: only the sentinel tells."""
    end.open()
    if os.fork() == 0:
        time.sleep(5)
        os._exit(0)
    end.receive()
    os._exit(3)


def _wait_for_stop(end, stopped):
    end.open(should_stop=stopped.is_set)
    try:
        end.receive()
    except ChannelClosed:
        os._exit(7)


def _start(target, *args):
    channel = WorkerChannel()
    proc = ctx.Process(target=target, args=(channel.worker_end, *args), daemon=True)
    proc.start()
    channel.started(proc)
    return channel, proc


def _finish(channel, proc):
    channel.close()
    proc.join(10)
    assert not proc.is_alive()


def test_messages_and_arrays_round_trip_in_order():
    channel, proc = _start(_echo)
    big = np.arange(300_000, dtype=np.float64)  # larger than a pipe: queued, written while waiting
    sent = [
        ("small", 1),
        {"array": big, "view": big[::2], "empty": np.zeros((0, 3), np.float32)},
        ("after", np.int64(5)),
    ]
    for message in sent:
        channel.send(message)
    got = []
    for _ in sent:
        assert wait([channel], time.monotonic() + 30, flushing=[channel]) == [channel]
        got.append(channel.receive())
    assert got[0] == ("small", 1) and got[2][0] == "after"
    assert np.array_equal(got[1]["array"], big) and np.array_equal(got[1]["view"], big[::2])
    assert got[1]["array"].flags.writeable  # read into a buffer of its own
    assert got[1]["empty"].shape == (0, 3)
    channel.send("stop")
    proc.join(10)
    _finish(channel, proc)


def test_an_unpicklable_message_raises_before_any_byte_is_written():
    with pytest.raises((pickle.PicklingError, AttributeError)):
        encode(("task", lambda: None))
    channel, proc = _start(_echo)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        channel.send(("task", lambda: None))
    channel.send("fine")  # the pipe holds no half message
    assert wait([channel], time.monotonic() + 30) == [channel]
    assert channel.receive() == "fine"
    _finish(channel, proc)


def test_deadline_returns_no_channel():
    channel, proc = _start(_echo)
    start = time.monotonic()
    assert wait([channel], start + 0.3) == []
    assert 0.25 < time.monotonic() - start < 10
    _finish(channel, proc)


def test_a_killed_worker_is_reported_at_once():
    channel, proc = _start(_die_now)
    channel.send("go")
    start = time.monotonic()
    assert wait([channel], start + 60) == [channel]
    with pytest.raises(EOFError):
        channel.receive()
    assert time.monotonic() - start < 10
    _finish(channel, proc)


def test_a_dead_worker_whose_pipe_stays_open_is_reported_by_its_sentinel():
    channel, proc = _start(_sleep_in_grandchild)
    channel.send("go")
    assert wait([channel], time.monotonic() + 60) == [channel]
    with pytest.raises(EOFError):
        channel.receive()
    proc.join(10)
    assert proc.exitcode == 3
    channel.close()


def test_the_worker_stops_when_asked_or_when_the_channel_closes():
    stopped = ctx.Event()
    channel, proc = _start(_wait_for_stop, stopped)
    stopped.set()
    proc.join(30)
    assert proc.exitcode == 7
    channel.close()

    channel, proc = _start(_echo)
    _finish(channel, proc)
    assert proc.exitcode == 0

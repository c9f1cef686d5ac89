"""An allow-list unpickler whose memory is bounded by its input.

Python's unpickler runs whatever callable a pickle names; this one resolves only the globals in
its allow-list (anything else is refused, naming the global), after a scan of the opcodes that
refuses the ones that need no global to run code or to allocate without limit (``INST``,
``OBJ``, extension codes, memo indices far beyond the pickle's length). Allowed callables that
copy data are charged against a byte budget proportional to the input, so a few kilobytes that
reuse one large memoised object many times cannot cost gigabytes.
"""

from __future__ import annotations

import _compat_pickle
import collections
import io
import pickle
import pickletools
from collections.abc import Callable
from typing import Any

__all__ = ["RestrictedUnpickler", "UnpicklingRefused", "charged"]

#: ``(module, name) -> object``: what a pickle may name; an object may be ``charged(fn, cost)``
Allowed = dict[tuple[str, str], Any]

_FORBIDDEN = {"INST", "OBJ", "EXT1", "EXT2", "EXT4", "NEXT_BUFFER", "READONLY_BUFFER"}
_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_GETS = {"GET", "BINGET", "LONG_BINGET"}


class UnpicklingRefused(Exception):
    """The pickle is malformed, or (``forbidden``) asks for something the allow-list or the
    budget does not permit; the message says what."""

    def __init__(
        self, message: str, forbidden: bool = False, refused_global: str | None = None
    ) -> None:
        super().__init__(message)
        self.forbidden = forbidden
        self.refused_global = refused_global  # "module.name" of a global not allowed


class Budget:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def charge(self, nbytes: int, what: str) -> None:
        self.spent += int(nbytes)
        if self.spent > self.limit:
            raise UnpicklingRefused(
                f"{what} would build more than {self.limit} bytes from a pickle this size",
                forbidden=True,
            )


def charged(
    fn: Callable[..., Any], cost: Callable[..., int]
) -> tuple[Callable[..., Any], Callable[..., int]]:
    """``fn`` for an allow-list whose calls charge ``cost(*args)`` bytes to the budget; the
    unpickler supplies the budget (see ``RestrictedUnpickler.resolve``)."""
    return (fn, cost)


def scan(data: bytes | bytearray, limits: dict[str, int] | None = None) -> None:
    """Refuse opcodes outside the safe set, opcodes used more often than ``limits`` (a dict
    opcode name -> count) allows, and memo indices the pickle cannot have filled."""
    ops = 0
    memo = set()
    counts: collections.Counter[str] = collections.Counter()
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(data)):
            ops += 1
            if opcode.name in _FORBIDDEN:
                raise UnpicklingRefused(f"opcode {opcode.name} is not allowed")
            if limits and opcode.name in limits:
                counts[opcode.name] += 1
                if counts[opcode.name] > limits[opcode.name]:
                    raise UnpicklingRefused(
                        f"more than {limits[opcode.name]} {opcode.name} opcodes"
                    )
            if opcode.name in _PUTS:
                if not (isinstance(arg, int) and 0 <= arg <= ops):
                    raise UnpicklingRefused(f"memo index {arg} out of range")
                memo.add(arg)
            elif opcode.name == "MEMOIZE":
                memo.add(len(memo))
            elif opcode.name in _GETS and arg not in memo:
                raise UnpicklingRefused(f"memo index {arg} used before it is set")
    except UnpicklingRefused:
        raise
    except Exception as e:  # pickletools' ValueError on truncated or malformed input
        raise UnpicklingRefused(f"malformed pickle: {e}") from None


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickles ``data`` (bytes) resolving globals through ``allowed``, a dict
    ``(module, name) -> object`` where an object may be ``charged(fn, cost)``; ``refuse(module,
    name)`` returns the message for any other global. ``budget`` bytes may be built by charged
    callables; ``limits`` caps how often given opcodes occur. Every failure is raised as
    ``UnpicklingRefused``."""

    def __init__(
        self,
        data: bytes | bytearray,
        allowed: Allowed,
        refuse: Callable[[str, str], str],
        budget: int,
        persistent_load: Callable[[Any], Any] | None = None,
        limits: dict[str, int] | None = None,
        **kwargs: Any,
    ) -> None:
        scan(data, limits)
        super().__init__(io.BytesIO(data), **kwargs)
        self._allowed = allowed
        self._refuse = refuse
        self._budget = Budget(budget)
        self._persistent = persistent_load

    def find_class(self, module: str, name: str) -> Any:
        # Python 2 names (protocol 2 pickles write __builtin__, copy_reg, ...) as Python 3's
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        obj = self._allowed.get((module, name))
        if obj is None:
            raise UnpicklingRefused(
                self._refuse(module, name), forbidden=True, refused_global=f"{module}.{name}"
            )
        if isinstance(obj, tuple):
            fn, cost = obj
            budget = self._budget
            label = f"{module}.{name}"

            def call(*args: Any) -> Any:
                budget.charge(cost(*args), label)
                return fn(*args)

            return call
        return obj

    def persistent_load(self, pid: Any) -> Any:
        if self._persistent is None:
            raise UnpicklingRefused("persistent ids are not allowed here")
        return self._persistent(pid)

    def load(self) -> Any:
        try:
            return super().load()
        except UnpicklingRefused:
            raise
        except RecursionError:
            raise UnpicklingRefused("nested too deeply") from None
        except Exception as e:  # UnpicklingError, EOFError, TypeError from an allowed call, ...
            raise UnpicklingRefused(f"{type(e).__name__}: {e}") from None

"""An allow-list unpickler whose memory is bounded by its input.

Python's unpickler runs whatever callable a pickle names; this one resolves only the globals in
its allow-list (anything else is refused, naming the global), after a scan of the opcodes that
refuses the ones that need no global to run code or to allocate without limit (``INST``,
``OBJ``, extension codes, memo indices far beyond the pickle's length).

The opcodes that act on an object already built follow PyTorch's weights-only unpickler:
``REDUCE`` and ``NEWOBJ`` call only what the allow-list names, ``BUILD`` sets the state of
``OrderedDict`` and of instances of the allowed classes only (never of a shared object such as
a dtype, a class or a function: a file must not change the process that reads it), and the
items of ``SETITEM``/``APPEND``/``ADDITEMS`` go only into dicts, lists and sets built by the
pickle (or instances of the allowed classes). Allowed callables are charged against a byte
budget proportional to the input for what they build, so a few kilobytes that reuse one large
memoised object many times cannot cost gigabytes.
"""

from __future__ import annotations

import _compat_pickle
import collections
import io
import pickle
import pickletools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from ._bounded_repr import error_text

__all__ = ["RestrictedUnpickler", "UnpicklingRefused", "Budget", "charged", "named"]

#: ``(module, name) -> object``: what a pickle may name; an object may be ``charged(fn, cost)``
#: (callable, charged) or ``named(obj)`` (an argument for other globals, never called)
Allowed = dict[tuple[str, str], Any]

_FORBIDDEN = {"INST", "OBJ", "EXT1", "EXT2", "EXT4", "NEXT_BUFFER", "READONLY_BUFFER"}
_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_GETS = {"GET", "BINGET", "LONG_BINGET"}
_MAPPINGS = (dict, collections.OrderedDict)


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


class Charged:
    """An allow-list entry: ``fn``, each call charged ``cost(*args)`` bytes before it runs."""

    __slots__ = ("fn", "cost")

    def __init__(self, fn: Callable[..., Any], cost: Callable[..., int]) -> None:
        self.fn, self.cost = fn, cost


class Named:
    """An allow-list entry a pickle may name (as another global's argument) but not call."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj


def charged(fn: Callable[..., Any], cost: Callable[..., int]) -> Charged:
    """``fn`` for an allow-list whose calls charge ``cost(*args)`` bytes to the budget (the
    unpickler's); ``cost`` may raise to refuse arguments."""
    return Charged(fn, cost)


def named(obj: object) -> Named:
    """``obj`` for an allow-list, as an argument only: ``REDUCE``/``NEWOBJ`` refuse to call it."""
    return Named(obj)


class ChargedCall:
    """The callable an unpickler hands out for a :class:`Charged` entry."""

    __slots__ = ("fn", "cost", "budget", "label")

    def __init__(self, entry: Charged, budget: Budget, label: str) -> None:
        self.fn, self.cost, self.budget, self.label = entry.fn, entry.cost, budget, label

    def __call__(self, *args: Any) -> Any:
        self.budget.charge(self.cost(*args), self.label)
        return self.fn(*args)


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


class RestrictedUnpickler(pickle._Unpickler):
    """Unpickles ``data`` (bytes) resolving globals through ``allowed``, a dict
    ``(module, name) -> object`` where an object may be ``charged(fn, cost)`` or ``named(obj)``;
    ``refuse(module, name)`` returns the message for any other global. ``budget`` (bytes, or a
    :class:`Budget` shared with the caller) bounds what charged callables build; ``limits`` caps
    how often given opcodes occur; ``buildable(obj)`` says whether ``BUILD`` may set ``obj``'s
    state and its items be set (beyond ``OrderedDict``'s attributes). Every failure is raised as
    ``UnpicklingRefused``.

    Python's own (pure-Python) unpickler does the work, with the opcodes that act on existing
    objects replaced: a checkpoint's pickle is small (the tensors' data is outside it)."""

    # Python's pure-Python unpickler, its opcode table keyed by the opcode's byte
    dispatch: ClassVar[dict[int, Callable[[Any], None]]] = dict(pickle._Unpickler.dispatch)

    if TYPE_CHECKING:  # the pure-Python unpickler's state, which typeshed leaves out
        stack: list[Any]

        def append(self, obj: Any) -> None: ...

        def pop_mark(self) -> list[Any]: ...

    def __init__(
        self,
        data: bytes | bytearray,
        allowed: Allowed,
        refuse: Callable[[str, str], str],
        budget: int | Budget,
        persistent_load: Callable[[Any], Any] | None = None,
        limits: dict[str, int] | None = None,
        buildable: Callable[[object], bool] | None = None,
        **kwargs: Any,
    ) -> None:
        scan(data, limits)
        super().__init__(io.BytesIO(data), **kwargs)
        self._allowed = allowed
        self._refuse = refuse
        self._budget = budget if isinstance(budget, Budget) else Budget(budget)
        self._persistent = persistent_load
        self._buildable = buildable or (lambda obj: False)
        # id -> object of what find_class handed out as callable (kept alive: ids stay unique)
        self._callables: dict[int, Any] = {}

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
        if isinstance(obj, Named):
            return obj.obj
        if isinstance(obj, Charged):
            obj = ChargedCall(obj, self._budget, f"{module}.{name}")
        if callable(obj):
            self._callables[id(obj)] = obj
        return obj

    def persistent_load(self, pid: Any) -> Any:
        if self._persistent is None:
            raise UnpicklingRefused("persistent ids are not allowed here")
        return self._persistent(pid)

    def _callable(self, func: object, opcode: str) -> None:
        if self._callables.get(id(func)) is not func:
            raise UnpicklingRefused(
                f"{opcode} may only call a function or class the allow-list names, "
                f"not a {type(func).__name__}",
                forbidden=True,
            )

    def _fillable(self, obj: object, kinds: tuple[type, ...], opcode: str) -> None:
        if type(obj) not in kinds and not self._buildable(obj):
            raise UnpicklingRefused(
                f"{opcode} on a {type(obj).__name__}: only the "
                f"{'/'.join(k.__name__ for k in kinds)} a pickle builds can be filled",
                forbidden=True,
            )

    def load_reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        self._callable(func, "REDUCE")
        if type(args) is not tuple:
            raise UnpicklingRefused(f"REDUCE arguments must be a tuple, not {type(args).__name__}")
        self.stack[-1] = func(*args)

    dispatch[pickle.REDUCE[0]] = load_reduce

    def _new_object(self, cls: object, args: object, opcode: str) -> object:
        self._callable(cls, opcode)
        if not isinstance(cls, type) or type(args) is not tuple:
            raise UnpicklingRefused(f"{opcode} needs a class and a tuple", forbidden=True)
        return cls.__new__(cls, *args)

    def load_newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new_object(cls, args, "NEWOBJ"))

    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self) -> None:
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        if kwargs:
            raise UnpicklingRefused("NEWOBJ_EX with keyword arguments is not allowed")
        self.append(self._new_object(cls, args, "NEWOBJ_EX"))

    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is collections.OrderedDict:  # a state dict's _metadata
            if not isinstance(state, dict):
                raise UnpicklingRefused("an OrderedDict's state must be a dict")
            inst.__dict__.update(state)
            return
        if not self._buildable(inst):
            raise UnpicklingRefused(
                "BUILD can only set the state of an OrderedDict or of an instance of an "
                f"allowed class, not of a {type(inst).__name__}",
                forbidden=True,
            )
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None:
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)

    dispatch[pickle.BUILD[0]] = load_build

    def load_setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        target = self.stack[-1]
        self._fillable(target, _MAPPINGS, "SETITEM")
        target[key] = value

    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self) -> None:
        items = self.pop_mark()
        target = self.stack[-1]
        self._fillable(target, _MAPPINGS, "SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    dispatch[pickle.SETITEMS[0]] = load_setitems

    def load_append(self) -> None:
        value = self.stack.pop()
        target = self.stack[-1]
        self._fillable(target, (list,), "APPEND")
        target.append(value)

    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self) -> None:
        items = self.pop_mark()
        target = self.stack[-1]
        self._fillable(target, (list,), "APPENDS")
        if type(target) is list:
            target.extend(items)
        else:
            for item in items:
                target.append(item)

    dispatch[pickle.APPENDS[0]] = load_appends

    def load_additems(self) -> None:
        items = self.pop_mark()
        target = self.stack[-1]
        self._fillable(target, (set,), "ADDITEMS")
        for item in items:
            target.add(item)

    dispatch[pickle.ADDITEMS[0]] = load_additems

    def load(self) -> Any:
        try:
            return super().load()
        except UnpicklingRefused:
            raise
        except RecursionError:
            raise UnpicklingRefused("nested too deeply") from None
        except Exception as e:  # UnpicklingError, EOFError, TypeError from an allowed call, ...
            raise UnpicklingRefused(error_text(e)) from None

"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Mapping
from itertools import islice
from typing import TYPE_CHECKING, Any

from .module import Module, _indent, typename

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = ["Sequential", "ModuleList", "ModuleDict"]


def _index(idx: int, size: int, kind: str) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules called one after the other, each on the previous one's output.

    Built from modules (named ``"0"``, ``"1"``, ...) or from one ``OrderedDict`` of named modules.
    Supports indexing, slicing (giving a ``Sequential``), ``len``, iteration and ``append``.

    Examples:
        >>> model = nl.nn.Sequential(nl.nn.Linear(4, 8), nl.nn.ReLU(), nl.nn.Linear(8, 2))
        >>> model[:2]
        Sequential(
          (0): Linear(in_features=4, out_features=8, bias=True)
          (1): ReLU()
        )
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Tensor) -> Tensor:
        for module in self._modules.values():
            input = module(input)  # type: ignore[misc]  # a None child fails here, as in PyTorch
        return input

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        i = _index(idx, len(self._modules), "Sequential")
        return next(islice(self._modules.values(), i, None))

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules.keys())[_index(idx, len(self._modules), "Sequential")]
        setattr(self, key, module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[_index(idx, len(self._modules), "Sequential")])
        # keep the numbering contiguous, as PyTorch does
        items = list(self._modules.items())
        self._modules.clear()
        for i, (_, module) in enumerate(items):
            self._modules[str(i)] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Any:
        return iter(self._modules.values())

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, Sequential):
            raise ValueError(
                "add operator supports only objects of Sequential class, but "
                f"{type(other)} is given."
            )
        result = Sequential()
        for module in list(self) + list(other):
            result.append(module)
        return result

    def append(self, module: Module) -> Any:
        """Add ``module`` at the end; returns the Sequential.

        Args:
            module (Module): the new last layer.

        Returns:
            Sequential: this Sequential.

        Examples:
            >>> seq = nn.Sequential(nn.Linear(2, 2))
            >>> seq.append(nn.ReLU())
            Sequential(
              (0): Linear(in_features=2, out_features=2, bias=True)
              (1): ReLU()
            )
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> Any:
        """Add the modules of an iterable at the end.

        Args:
            modules (iterable of Modules): the new layers.

        Returns:
            Sequential: this Sequential.

        Examples:
            >>> seq = nn.Sequential(nn.Linear(2, 2))
            >>> len(seq.extend([nn.ReLU(), nn.Linear(2, 1)]))
            3
        """
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Any:
        """Insert ``module`` before position ``index`` (negative counts from the end).

        Args:
            index (int): the position.
            module (Module): the new layer.

        Returns:
            Sequential: this Sequential.

        Examples:
            >>> seq = nn.Sequential(nn.Linear(2, 2))
            >>> seq.insert(0, nn.Tanh())[0]
            Tanh()
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m
        return self


class ModuleList(Module):
    """A list of modules, registered so that their parameters belong to the owner.

    Args:
        modules (iterable of Modules, optional): the initial entries.

    Examples:
        >>> layers = nl.nn.ModuleList([nl.nn.Linear(4, 4) for _ in range(3)])
        >>> len(list(layers.parameters()))
        6
    """

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, idx: int) -> str:
        return str(_index(idx, len(self._modules), "ModuleList"))

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._key(idx))
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Any:
        return iter(self._modules.values())

    def __iadd__(self, modules: Any) -> Any:
        return self.extend(modules)

    def __add__(self, other: Any) -> Any:
        return ModuleList(list(self) + list(other))

    def append(self, module: Module) -> Any:
        """Add ``module`` at the end.

        Args:
            module (Module): the new entry.

        Returns:
            ModuleList: this list.

        Examples:
            >>> layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
            >>> len(layers.append(nn.Sigmoid()))
            3
        """
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> Any:
        """Add the modules of an iterable at the end.

        Args:
            modules (iterable of Modules): the new entries.

        Returns:
            ModuleList: this list.

        Examples:
            >>> layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
            >>> len(layers.extend([nn.ReLU(), nn.ReLU()]))
            4
        """
        if isinstance(modules, (Module, Mapping)) or not hasattr(modules, "__iter__"):
            raise TypeError(
                "ModuleList.extend should be called with an iterable, but got " + typename(modules)
            )
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``.

        Args:
            index (int): the position.
            module (Module): the new entry.

        Examples:
            >>> layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
            >>> layers.insert(0, nn.Sigmoid())
            >>> layers[0]
            Sigmoid()
        """
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def pop(self, key: int | slice) -> Any:
        """Remove the entry at ``key`` (an index) and return it.

        Args:
            key (int): the position.

        Returns:
            Module: the removed module.

        Examples:
            >>> layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
            >>> layers.pop(0)
            ReLU()
            >>> len(layers)
            1
        """
        v = self[key]
        del self[key]
        return v

    def __repr__(self) -> str:
        # runs of identical children are shown once, as "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []  # [start, end, text]
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for start, end, text in runs:
            head = f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x "
            lines.append(_indent(head + text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys.

    Args:
        modules (dict or iterable of (str, Module) pairs, optional): the initial entries.

    Examples:
        >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
        >>> list(d.keys())
        ['act', 'fc']
        >>> len(list(d.parameters()))
        2
    """

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Any:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Any:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every entry.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> d.clear()
            >>> len(d)
            0
        """
        self._modules.clear()

    def pop(self, key: str) -> Any:
        """Remove the entry ``key`` and return its module.

        Args:
            key (str): the entry.

        Returns:
            Module: the removed module.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> d.pop("act")
            ReLU()
            >>> list(d.keys())
            ['fc']
        """
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        """The keys, in insertion order.

        Returns:
            The dict's keys view.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> list(d.keys())
            ['act', 'fc']
        """
        return self._modules.keys()

    def items(self) -> Any:
        """``(key, module)`` pairs, in insertion order.

        Returns:
            The dict's items view.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> [k for k, m in d.items()]
            ['act', 'fc']
        """
        return self._modules.items()

    def values(self) -> Any:
        """The modules, in insertion order.

        Returns:
            The dict's values view.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> list(d.values())[0]
            ReLU()
        """
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add or replace entries from a mapping or from ``(key, module)`` pairs.

        Args:
            modules (mapping or iterable of pairs): the new entries.

        Examples:
            >>> d = nn.ModuleDict({"act": nn.ReLU(), "fc": nn.Linear(2, 2)})
            >>> d.update({"act": nn.Tanh()})
            >>> d["act"]
            Tanh()
        """
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, pair in enumerate(modules):
                if not hasattr(pair, "__len__") or len(pair) != 2:
                    raise ValueError(
                        f"ModuleDict update sequence element #{j} has length "
                        f"{len(pair) if hasattr(pair, '__len__') else '?'}; 2 is required"
                    )
                self[pair[0]] = pair[1]

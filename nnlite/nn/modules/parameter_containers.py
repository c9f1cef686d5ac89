"""``ParameterList`` and ``ParameterDict``: parameters held in a list or a dict, registered with the
module (so ``parameters()``, ``state_dict()`` and optimizers see them), as PyTorch's."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...autograd.tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["ParameterList", "ParameterDict"]


def _as_parameter(value: Any) -> Any:
    """Tensors become Parameters (as PyTorch wraps them); anything else is kept as it is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value: Any) -> tuple[str, Any]:
    """PyTorch's one-line description of a held value."""
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(s) for s in value.shape)
        return f"{kind} containing: [{{}} of size {size}]", value
    return f"Object of type: {type(value).__name__}", None


class ParameterList(Module):
    """A list of parameters, each registered under its index.

    Args:
        values (iterable, optional): the initial parameters (tensors are made Parameters).

    Examples:
        >>> params = nn.ParameterList([nn.Parameter(nl.ones(2)) for _ in range(2)])
        >>> len(list(params.parameters()))
        2
        >>> params
        ParameterList(
            (0): Parameter containing: [nnlite.float32 of size 2]
            (1): Parameter containing: [nnlite.float32 of size 2]
        )
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _absolute(self, idx: int) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx % len(self))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__([self[i] for i in range(len(self))[idx]])
        return getattr(self, self._absolute(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._absolute(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add ``value`` at the end.

        Args:
            value: a parameter (a tensor becomes one) or any object.

        Returns:
            ParameterList: itself.

        Examples:
            >>> len(nn.ParameterList().append(nl.zeros(3)))
            1
        """
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add every element of ``values`` at the end.

        Args:
            values (iterable): parameters or objects.

        Returns:
            ParameterList: itself.

        Examples:
            >>> len(nn.ParameterList().extend([nl.zeros(1), nl.zeros(2)]))
            2
        """
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        lines = []
        for k, value in enumerate(self):
            text, tensor = _describe(value)
            lines.append(f"  ({k}): " + (text.format(tensor.dtype) if tensor is not None else text))
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters, each registered under its key.

    Args:
        parameters (mapping or iterable of pairs, optional): the initial entries.

    Examples:
        >>> params = nn.ParameterDict({"scale": nn.Parameter(nl.ones(2, 3))})
        >>> params["scale"].shape
        nnlite.Size([2, 3])
        >>> params
        ParameterDict(  (scale): Parameter containing: [nnlite.FloatTensor of size 2x3])
    """

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"module name should be a string. Got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __or__(self, other: Any) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ior__(self, other: Any) -> ParameterDict:
        self.update(other)
        return self

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them).

        Returns:
            ParameterDict: the copy.

        Examples:
            >>> nn.ParameterDict({"a": nl.zeros(1)}).copy().keys()
            odict_keys(['a'])
        """
        return ParameterDict([(k, self[k]) for k in self._keys])

    def keys(self) -> Any:
        """The keys, in insertion order.

        Returns:
            odict_keys: the keys.

        Examples:
            >>> nn.ParameterDict({"a": nl.zeros(1)}).keys()
            odict_keys(['a'])
        """
        from collections import OrderedDict

        return OrderedDict.fromkeys(self._keys).keys()

    def items(self) -> Iterable[tuple[str, Any]]:
        """``(key, parameter)`` pairs, in insertion order.

        Returns:
            iterable: the pairs.

        Examples:
            >>> [k for k, _ in nn.ParameterDict({"a": nl.zeros(1)}).items()]
            ['a']
        """
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterable[Any]:
        """The parameters, in insertion order.

        Returns:
            iterable: the parameters.

        Examples:
            >>> [v.shape for v in nn.ParameterDict({"a": nl.zeros(1)}).values()]
            [nnlite.Size([1])]
        """
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """``self[key]`` if present, else ``default``.

        Args:
            key (str): the key.
            default: what to return when absent.

        Returns:
            the parameter or ``default``.

        Examples:
            >>> nn.ParameterDict().get("a", 0)
            0
        """
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove ``key`` and return its parameter.

        Args:
            key (str): the key.

        Returns:
            the parameter.

        Examples:
            >>> nn.ParameterDict({"a": nl.zeros(1)}).pop("a").shape
            nnlite.Size([1])
        """
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last ``(key, parameter)`` pair.

        Returns:
            tuple: the pair.

        Examples:
            >>> nn.ParameterDict({"a": nl.zeros(1)}).popitem()[0]
            'a'
        """
        key = list(self._keys)[-1]
        return key, self.pop(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, first set to ``default`` if absent.

        Args:
            key (str): the key.
            default: the value to set when absent.

        Returns:
            the parameter.

        Examples:
            >>> nn.ParameterDict().setdefault("a", nl.zeros(1)).shape
            nnlite.Size([1])
        """
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry.

        Examples:
            >>> d = nn.ParameterDict({"a": nl.zeros(1)})
            >>> d.clear()
            >>> len(d)
            0
        """
        for key in list(self._keys):
            del self[key]

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each set to ``default``.

        Args:
            keys (iterable of str): the keys.
            default: the value of each.

        Returns:
            ParameterDict: the new dict.

        Examples:
            >>> len(nn.ParameterDict().fromkeys(["a", "b"], nl.zeros(1)))
            2
        """
        return ParameterDict((k, default) for k in keys)

    def update(self, parameters: Any) -> None:
        """Add or replace entries from a mapping or an iterable of ``(key, value)`` pairs.

        Args:
            parameters (mapping or iterable of pairs): the entries.

        Examples:
            >>> d = nn.ParameterDict()
            >>> d.update({"a": nl.zeros(1)})
            >>> list(d)
            ['a']
        """
        if isinstance(parameters, (Mapping, ParameterDict)):
            pairs = list(parameters.items())
            if not isinstance(parameters, dict) and isinstance(parameters, Mapping):
                pairs = sorted(pairs)
        else:
            pairs = []
            for j, pair in enumerate(parameters):
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise ValueError(
                        f"ParameterDict update sequence element #{j} has length "
                        f"{len(pair) if hasattr(pair, '__len__') else 'unknown'}; 2 is required"
                    )
                pairs.append(tuple(pair))
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        lines = []
        for key, value in self.items():
            text, tensor = _describe(value)
            lines.append(
                f"  ({key}): " + (text.format(tensor.type()) if tensor is not None else text)
            )
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

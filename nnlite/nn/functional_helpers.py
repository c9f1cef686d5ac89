"""Helpers that PyTorch's ``nn.functional`` exports for code written against it:
``assert_int_or_pair`` (an argument check) and ``boolean_dispatch`` (one public function that
picks one of two implementations by a boolean argument, as ``max_pool2d`` picks by
``return_indices``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["assert_int_or_pair", "boolean_dispatch"]


def assert_int_or_pair(arg: Any, arg_name: str, message: str) -> None:
    """Raise ``AssertionError(message.format(arg_name))`` unless ``arg`` is an int or a pair.

    Args:
        arg (int or sequence): the value checked.
        arg_name (str): its name, put into ``message``.
        message (str): the error text, with one ``{}`` for the name.

    Examples:
        >>> F.assert_int_or_pair((2, 3), "kernel_size", "{} must be int or pair")
        >>> F.assert_int_or_pair((1, 2, 3), "stride", "{} must be int or pair")
        Traceback (most recent call last):
        ...
        AssertionError: stride must be int or pair
    """
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(
    arg_name: str,
    arg_index: int,
    default: bool,
    if_true: Callable[..., Any],
    if_false: Callable[..., Any],
    module_name: str | None,
    func_name: str | None,
) -> Callable[..., Any]:
    """A function calling ``if_true`` or ``if_false`` by the boolean argument ``arg_name``.

    The flag is read from the keyword ``arg_name``, else from position ``arg_index``, else it
    is ``default``. The result takes the docstring of whichever function has one.

    Args:
        arg_name (str): the flag's keyword.
        arg_index (int): the flag's position.
        default (bool): the flag when the call does not give it.
        if_true (callable): called when the flag is true.
        if_false (callable): called when it is false.
        module_name (str, optional): the result's ``__module__``.
        func_name (str, optional): the result's ``__name__``.

    Returns:
        callable: the dispatching function.

    Raises:
        RuntimeError: when both functions have a docstring.

    Examples:
        >>> def with_index(x, flag=True):
        ...     return x, 0
        >>> def plain(x, flag=False):
        ...     return x
        >>> pick = F.boolean_dispatch("flag", 1, False, with_index, plain, None, "pick")
        >>> pick(5), pick(5, True), pick(5, flag=True)
        (5, (5, 0), (5, 0))
    """

    def dispatch(*args: Any, **kwargs: Any) -> Any:
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    dispatch.__doc__ = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if module_name is not None:
        dispatch.__module__ = module_name
    if func_name is not None:
        dispatch.__name__ = func_name
    return dispatch

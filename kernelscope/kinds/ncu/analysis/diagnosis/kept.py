"""``kept``: a value derived from a frozen object's fields, worked out once when first read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

_T = TypeVar("_T")


class kept(Generic[_T]):
    """A property worked out on first read and kept in the instance, whose later reads are
    plain attribute reads: ``functools.cached_property`` without its lock (Python 3.11 takes
    one on every first read; a kernel's facts are made and read by one thread)."""

    def __init__(self, derive: Callable[[Any], _T]) -> None:
        self.derive = derive
        self.name = derive.__name__
        self.__doc__ = derive.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> kept[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> kept[_T] | _T:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.derive(instance)
        return value

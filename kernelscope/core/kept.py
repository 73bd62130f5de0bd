"""Frozen objects made and read cheaply: ``kept``, a value derived from their fields worked out
once when first read; ``made_whole``, one made with every field at once; ``handed``, one given
its fields' dict itself; ``fields_at_once``, a class whose ``__init__`` writes them at once;
``evolved``, a copy with some fields changed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, fields
from typing import Any, Generic, TypeVar, cast, overload

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


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def made_whole(cls: type[_T], values: Mapping[str, Any]) -> _T:
    """An instance of the frozen dataclass ``cls`` holding ``values``: every one of its fields
    and no other (TypeError otherwise), written at once where its ``__init__`` writes them
    one ``object.__setattr__`` each (a kernel's ``Facts`` have 52). Equal to ``cls(**values)``;
    ``cls`` has no ``__post_init__`` and no field outside its ``__init__``."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cast(Any, cls)))
    if values.keys() != names:
        raise TypeError(f"{cls.__name__} needs exactly its fields, got {sorted(values)}")
    made: _T = object.__new__(cls)
    made.__dict__.update(values)
    return made


_new = object.__new__
_set = object.__setattr__


def handed(cls: type[_T], fields: dict[str, Any]) -> _T:
    """An instance of the frozen dataclass ``cls`` whose attributes are the dict ``fields``
    itself: ``made_whole`` without its check and its copy, for a dict its maker built with
    exactly the fields of ``cls`` and hands over (keeps no reference to): the engine's flags,
    each a literal of ``Flag``'s 17 names weighed in place, two or three a launch."""
    made: _T = _new(cls)
    _set(made, "__dict__", fields)
    return made


def fields_at_once(cls: type[_T]) -> type[_T]:
    """Give the frozen dataclass ``cls`` (fields with plain defaults, no ``__post_init__``) an
    ``__init__`` of the generated one's signature that writes the fields straight into the
    instance's dict, where the generated one calls ``object.__setattr__`` for each: for the
    classes every diagnosed launch makes (its bottleneck, its guard rails)."""
    params, lines, names = [], [], {}
    for field in fields(cast(Any, cls)):
        if field.default_factory is not MISSING or not field.init:
            raise TypeError(f"{cls.__name__}.{field.name}: only plain fields are written")
        if field.default is MISSING:
            params.append(field.name)
        else:
            names[f"_default_{field.name}"] = field.default
            params.append(f"{field.name}=_default_{field.name}")
        lines.append(f"    fields[{field.name!r}] = {field.name}\n")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    exec(f"def __init__(self, {', '.join(params)}):\n    fields = self.__dict__\n"
         + "".join(lines), names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = fields_at_once.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def evolved(obj: _T, **changes: Any) -> _T:
    """``dataclasses.replace(obj, **changes)`` for a frozen dataclass as ``made_whole`` takes
    (the flags, the bottleneck, the diagnosis): the fields copied in one go rather than passed
    through ``__init__`` one at a time, for the weighing that remakes every flag of every
    launch. An unknown field is a TypeError, as there."""
    values = obj.__dict__
    if not changes.keys() <= values.keys():
        raise TypeError(f"{type(obj).__name__} has no field {sorted(changes.keys() - values)}")
    made: _T = object.__new__(type(obj))
    made.__dict__.update(values)
    made.__dict__.update(changes)
    return made

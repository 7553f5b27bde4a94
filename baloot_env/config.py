"""Typed, frozen configs from plain mappings (JSON, YAML, agent spec files): one helper, one error.

``from_mapping(cls, data, item)`` builds the frozen dataclass ``cls`` from ``data``: anything but
a mapping, an unknown key or a value of the wrong type raises ``ConfigError`` naming it. Types
come from the field annotations: a ``bool`` field takes only True or False, an ``int`` field only
an int (not a bool, not 5.0), a ``float`` field any number but a bool (converted to float), a
``str`` field only a string. Ranges and choices are the dataclass's own business
(``__post_init__``), which raises ``ConfigError`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

from baloot_env.errors import ConfigError

T = TypeVar("T")

_KINDS = {"bool": "True or False", "int": "an integer", "float": "a number", "str": "a string"}


def from_mapping(cls: type[T], data: object, item: str) -> T:
    """``cls(**data)`` after checking the keys and the value types.

    Args:
        cls: a dataclass whose fields are bool, int, float or str.
        data: the mapping read from a file or a command line.
        item: what one key is called in messages: ``"RuleConfig key"``, ``"heuristic param"``.

    Raises:
        ConfigError: ``data`` is not a mapping, has an unknown key, or a value of the wrong type.
    """
    if not isinstance(data, Mapping):
        raise ConfigError(f"{item}s must be a mapping, got {type(data).__name__}")
    types = {f.name: _type_name(f.type) for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted((k for k in data if k not in types), key=repr)  # repr: keys of mixed types still sort
    if unknown:
        raise ConfigError(f"unknown {item}s {unknown}; known are {sorted(types)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        values[name] = _typed(value, types[name], f"{item} {name}")
    return cls(**values)


def _type_name(annotation: object) -> str:
    """``"int"`` for ``int`` or the string ``"int"`` (modules with postponed annotations)."""
    return annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))


def _typed(value: object, kind: str, where: str) -> object:
    """``value`` checked against the annotation ``kind`` (a float field converts an int)."""
    is_bool = isinstance(value, bool)
    if kind == "bool":
        ok = is_bool
    elif kind == "int":
        ok = isinstance(value, int) and not is_bool
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not is_bool
        if ok:
            return float(value)  # type: ignore[arg-type]
    elif kind == "str":
        ok = isinstance(value, str)
    else:
        raise TypeError(f"from_mapping handles bool, int, float and str fields, not {kind!r} ({where})")
    if not ok:
        raise ConfigError(f"{where} must be {_KINDS[kind]}, got {value!r}")
    return value

"""Typed, frozen configs from plain mappings (YAML, JSON, agent spec files): one builder, one error.

``from_mapping(cls, data, item)`` builds the dataclass ``cls`` from ``data``, and every dataclass
field inside it from its own sub-mapping (a training config's sections, its ``env.rules``).
Anything but a mapping, an unknown key or a value of the wrong type raises ``ConfigError``
naming it by its dotted path, and so does a field without a default that ``data`` lacks. Types come from the field annotations:

- ``bool`` takes only true or false;
- ``int`` an integer, or a float with an integral value (YAML reads ``2.0e+6`` as a float),
  never a bool;
- ``float`` any number but a bool (converted to float);
- ``str`` only a string;
- ``tuple[X, ...]`` a list (or tuple) of X;
- ``X | None`` null, or what X takes;
- a dataclass a mapping (or an instance of it, kept as it is).

Ranges and choices are the dataclass's own business (``__post_init__``), which raises
``ConfigError`` too; inside a section its message is prefixed with the section's path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeVar, get_args, get_origin, get_type_hints

from baloot_env.errors import ConfigError, shown

T = TypeVar("T")

_KINDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def from_mapping(cls: type[T], data: object, item: str, path: str = "") -> T:
    """``cls(**data)`` after checking the keys and the value types, section by section.

    Args:
        cls: a dataclass whose fields are bool, int, float, str, tuples of those, or dataclasses.
        data: the mapping read from a file or a command line.
        item: what one key is called in messages: ``"RuleConfig key"``, ``"heuristic param"``,
            ``"config key"``.
        path: the dotted path of ``data`` inside the whole config (``"ppo"``), ``""`` at the top.

    Raises:
        ConfigError: ``data`` is not a mapping, has an unknown key, a value of the wrong type, or
            a value its dataclass refuses.
    """
    if isinstance(data, cls):
        return data
    where = path or f"{item}s"
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping, got {type(data).__name__}")
    hints = get_type_hints(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    names = [f.name for f in fields]
    inside = f" in {path}" if path else ""
    unknown = sorted((k for k in data if k not in names), key=repr)  # repr: keys of mixed types still sort
    if unknown:
        raise ConfigError(f"unknown {item}s {unknown}{inside}; known are {sorted(names)}")
    no_default = dataclasses.MISSING
    missing = [
        f.name for f in fields if f.default is no_default and f.default_factory is no_default and f.name not in data
    ]
    if missing:
        raise ConfigError(f"missing {item}s {missing}{inside}")
    values = {
        name: _typed(value, hints[name], item, f"{path}.{name}" if path else name) for name, value in data.items()
    }
    if not path:
        return cls(**values)
    try:
        return cls(**values)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def _typed(value: object, kind: Any, item: str, key: str) -> object:
    """``value`` checked against the annotation ``kind`` (module docstring)."""
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return from_mapping(kind, value, item, key)
    args = get_args(kind)
    if type(None) in args and len(args) == 2:  # X | None
        return None if value is None else _typed(value, args[args.index(type(None)) - 1], item, key)
    if get_origin(kind) is tuple:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{item} {key} must be a list, got {shown(value)}")
        return tuple(_typed(v, args[0], item, key) for v in value)
    is_bool = isinstance(value, bool)
    if kind is bool:
        ok = is_bool
    elif kind is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)
        ok = isinstance(value, int) and not is_bool
    elif kind is float:
        ok = isinstance(value, (int, float)) and not is_bool
        if ok:
            return float(value)  # type: ignore[arg-type]
    elif kind is str:
        ok = isinstance(value, str)
    else:
        raise TypeError(f"from_mapping handles bool, int, float, str, tuples and dataclasses, not {kind!r} ({key})")
    if not ok:
        raise ConfigError(f"{item} {key} must be {_KINDS[kind]}, got {shown(value)}")
    return value

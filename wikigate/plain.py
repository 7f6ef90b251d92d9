"""Plain data classes with pydantic's shape, and pydantic only where data enters.

The models every verification passes around (findings, the report, the rules) are frozen
or plain ``dataclasses``: building one costs what building a tuple costs, and importing
them imports no pydantic (~120 ms a process; issue 25). Where data enters from outside
(a report read back, a config file, a cached row, a trailer), ``model_validate``
validates it with a pydantic model generated from the dataclass on first use: the same
field names, types, constraints (``rule(ge=…)``), validators (``rule(after=…)``) and
descriptions, so the errors, the JSON Schema and the JSON are those of the pydantic
models these classes replace. ``model_dump``/``model_dump_json`` write the same JSON
without pydantic.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
import warnings
from collections.abc import Callable
from typing import (
    Any,
    ClassVar,
    Literal,
    TypeVar,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
)

T = TypeVar("T")
P = TypeVar("P", bound="Plain")

_MISSING: Any = dataclasses.MISSING
_CONSTRAINTS = {"description", "ge", "le", "gt", "lt", "min_length", "max_length", "allow_inf_nan"}


def rule(
    default: Any = _MISSING,
    *,
    factory: Callable[[], Any] | None = None,
    after: Callable[[Any], Any] | None = None,
    exclude: bool = False,
    repr: bool = True,
    **constraints: Any,
) -> Any:
    """A field with pydantic's ``Field`` arguments (``description``, ``ge``, ``le``, ``gt``,
    ``min_length``, ``max_length``, ``allow_inf_nan``), an ``after`` validator run on the
    validated value (a ValueError is the field's error), ``exclude`` (never dumped)."""
    unknown = constraints.keys() - _CONSTRAINTS
    if unknown:
        raise TypeError(f"rule() got unknown arguments {sorted(unknown)}")
    meta = {"constraints": constraints, "after": after, "exclude": exclude}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta, repr=repr)
    return dataclasses.field(default=default, metadata=meta, repr=repr)


@dataclass_transform(kw_only_default=True, field_specifiers=(rule,))
def plain(
    *, frozen: bool = False, extra: Literal["ignore", "forbid"] = "ignore", validate: bool = False
) -> Callable[[type[T]], type[T]]:
    """Make a :class:`Plain` subclass a keyword-only dataclass. ``extra="forbid"``: unknown
    keys are errors on validation; ``validate``: every construction is validated as a
    pydantic model's was (for models built from outside data, off the hot path).  A
    class's ``__derive__`` (fields computed from the others, never taken from input) runs
    on construction and on validation."""

    def make(cls: type[T]) -> type[T]:
        doc = cls.__dict__.get("__doc__")
        derive = cls.__dict__.get("__derive__")
        # set before the dataclass is made: its __init__ calls __post_init__ only if the
        # class had one then
        if validate:
            setattr(cls, "__post_init__", _validating(derive))  # noqa: B010
        elif derive is not None:
            setattr(cls, "__post_init__", derive)  # noqa: B010
        out = dataclasses.dataclass(frozen=frozen, kw_only=True)(cls)
        out.__plain__ = {"doc": doc, "extra": extra, "frozen": frozen}  # type: ignore[attr-defined]
        return out

    return make


class Plain:
    """The base of wikigate's data classes: pydantic's methods, without pydantic."""

    __plain__: ClassVar[dict[str, Any]]

    def model_copy(self: P, update: dict[str, Any] | None = None) -> P:
        return dataclasses.replace(self, **(update or {}))  # type: ignore[type-var]

    def model_dump(
        self,
        *,
        mode: Literal["python", "json"] = "python",
        include: set[str] | None = None,
        exclude: set[str] | None = None,
        exclude_defaults: bool = False,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        return _dump(self, mode == "json", include, exclude, exclude_defaults, exclude_none)

    def model_dump_json(
        self,
        *,
        indent: int | None = None,
        include: set[str] | None = None,
        exclude: set[str] | None = None,
        exclude_none: bool = False,
    ) -> str:
        data = _dump(self, True, include, exclude, False, exclude_none)
        if indent is None:
            return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return json.dumps(data, ensure_ascii=False, indent=indent)

    @classmethod
    def model_validate(cls: type[P], data: Any) -> P:
        """``data`` validated as the pydantic model of this class was (raises pydantic's
        ValidationError, a ValueError), as an instance of this class."""
        if isinstance(data, cls):
            return data
        return _untwin(pydantic_model(cls).model_validate(data))  # type: ignore[no-any-return]

    @classmethod
    def model_validate_json(cls: type[P], data: str | bytes) -> P:
        return _untwin(pydantic_model(cls).model_validate_json(data))  # type: ignore[no-any-return]

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        return dict(pydantic_model(cls).model_json_schema())


def _validating(derive: Callable[[Any], None] | None) -> Callable[[Plain], None]:
    def post_init(self: Plain) -> None:
        _validate_on_init(self)
        if derive is not None:
            derive(self)

    return post_init


def _validate_on_init(self: Plain) -> None:
    if all(
        f.default is not _MISSING and getattr(self, f.name) is f.default
        for f in dataclasses.fields(self)  # type: ignore[arg-type]
    ):
        return  # the class's defaults, e.g. ``Budget()`` as another's default: nothing to check
    checked = type(self).model_validate(_dump(self, False, None, None, False, False))
    for f in dataclasses.fields(self):  # type: ignore[arg-type]
        if not f.metadata.get("exclude"):
            object.__setattr__(self, f.name, getattr(checked, f.name))


def _fields(cls: type) -> tuple[tuple[dataclasses.Field[Any], bool], ...]:
    """The fields dumped, each with whether it is a float (pydantic writes 30 as 30.0)."""
    found: tuple[tuple[dataclasses.Field[Any], bool], ...] | None = cls.__dict__.get(
        "__plain_fields__"
    )
    if found is None:
        hints = _hints(cls)
        found = tuple(
            (f, hints[f.name] in (float, float | None))
            for f in dataclasses.fields(cls)
            if not f.metadata.get("exclude")
        )
        cls.__plain_fields__ = found  # type: ignore[attr-defined]
    return found


def _dump(
    obj: Plain,
    json_mode: bool,
    include: set[str] | None,
    exclude: set[str] | None,
    exclude_defaults: bool,
    exclude_none: bool,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f, is_float in _fields(type(obj)):
        name = f.name
        if (include is not None and name not in include) or (exclude and name in exclude):
            continue
        value = getattr(obj, name)
        if exclude_none and value is None:
            continue
        if exclude_defaults and f.default is not _MISSING and value == f.default:
            continue
        if is_float and type(value) is int:
            value = float(value)
        out[name] = _value(value, json_mode, exclude_defaults, exclude_none)
    return out


def _value(value: Any, json_mode: bool, exclude_defaults: bool, exclude_none: bool) -> Any:
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, Plain):
        return _dump(value, json_mode, None, None, exclude_defaults, exclude_none)
    if isinstance(value, list | tuple):
        items = [_value(v, json_mode, exclude_defaults, exclude_none) for v in value]
        return items if json_mode or isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _value(v, json_mode, exclude_defaults, exclude_none) for k, v in value.items()}
    return value


def _untwin(value: Any) -> Any:
    """A validated pydantic twin's value as plain data classes (see pydantic_model)."""
    plain_class = getattr(type(value), "__plain_class__", None)
    if plain_class is not None:
        made = plain_class.__new__(plain_class)
        for f in dataclasses.fields(plain_class):
            object.__setattr__(
                made,
                f.name,
                _default(f) if f.metadata.get("exclude") else _untwin(getattr(value, f.name)),
            )
        derive = getattr(plain_class, "__derive__", None)
        if derive is not None:  # fields computed from the others, never taken from input
            derive(made)
        return made
    if isinstance(value, list):
        return [_untwin(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_untwin(v) for v in value)
    if isinstance(value, dict):
        return {k: _untwin(v) for k, v in value.items()}
    return value


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not _MISSING:
        return f.default
    factory: Callable[[], Any] = f.default_factory  # type: ignore[assignment]
    return factory()


def _hints(cls: type) -> dict[str, Any]:
    found: dict[str, Any] | None = cls.__dict__.get("__plain_hints__")
    if found is None:
        found = typing.get_type_hints(cls)
        cls.__plain_hints__ = found  # type: ignore[attr-defined]
    return found


def pydantic_model(cls: type[Plain]) -> Any:
    """The pydantic model ``cls`` stands for, made on first use (imports pydantic)."""
    made = cls.__dict__.get("__pydantic_twin__")
    if made is not None:
        return made
    from pydantic import AfterValidator, ConfigDict, Field, create_model

    def twin(hint: Any) -> Any:
        origin = get_origin(hint)
        if isinstance(hint, type) and issubclass(hint, Plain):
            return pydantic_model(hint)
        if origin in (Union, types.UnionType):
            return Union[tuple(twin(a) for a in get_args(hint))]  # noqa: UP007
        if origin is list:
            return list[twin(get_args(hint)[0])]  # type: ignore[misc]
        if origin is tuple:
            args = get_args(hint)
            return tuple[twin(args[0]), ...] if args[-1] is Ellipsis else hint  # type: ignore[misc]
        if origin is dict:
            key, value = get_args(hint)
            return dict[twin(key), twin(value)]  # type: ignore[misc]
        return hint

    hints = typing.get_type_hints(cls, include_extras=True)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        hint = twin(hints[f.name])
        after = f.metadata.get("after")
        if after is not None:
            hint = typing.Annotated[hint, AfterValidator(after)]
        spec = dict(f.metadata.get("constraints", {}))
        if f.metadata.get("exclude"):
            spec["exclude"] = True
        if f.default is not _MISSING:
            default = f.default
            if isinstance(default, Plain):
                default = pydantic_model(type(default)).model_validate(default.model_dump())
            spec["default"] = default
        elif f.default_factory is not _MISSING:
            factory = f.default_factory
            if isinstance(factory, type) and issubclass(factory, Plain):
                factory = pydantic_model(factory)
            spec["default_factory"] = factory
        fields[f.name] = (hint, Field(**spec))
    info = cls.__plain__
    with warnings.catch_warnings():
        # a field named like a BaseModel attribute ([presentation] register) is only a
        # field of the twin: pydantic validates it as any other
        warnings.filterwarnings("ignore", "Field name .* shadows an attribute in parent")
        made = create_model(
            cls.__name__,
            __config__=ConfigDict(extra=info["extra"], frozen=info["frozen"]),
            __doc__=info["doc"],
            __module__=cls.__module__,
            **fields,
        )
    made.__plain_class__ = cls
    cls.__pydantic_twin__ = made  # type: ignore[attr-defined]
    return made


class _Unsure(Exception):
    """The quick check cannot vouch for a value: pydantic decides."""


def quick_validate(cls: type[P], data: Any) -> P | None:
    """``data`` as ``cls`` when every key is a field and every value is plainly valid: the
    exact type a TOML or JSON reader gives (no conversion but int → float), within its
    constraints, passing its validators; else None, and ``model_validate`` decides (and
    words any error). Whatever this accepts, pydantic accepts and makes the same of."""
    try:
        return _quick(cls, data)  # type: ignore[no-any-return]
    except _Unsure:
        return None


def _quick(cls: type[Plain], data: Any) -> Any:
    if type(data) is not dict:
        raise _Unsure
    plan = _plan(cls)
    if not data.keys() <= plan.keys():
        raise _Unsure  # an unknown key: an error (extra="forbid") or ignored; pydantic says
    made = cls.__new__(cls)
    for name, (hint, constraints, after, f) in plan.items():
        if name in data:
            value = _quick_value(hint, data[name], constraints)
            if after is not None:
                try:
                    value = after(value)
                except ValueError:
                    raise _Unsure from None
        elif f.default is _MISSING and f.default_factory is _MISSING:
            raise _Unsure  # a required field: pydantic says so
        else:
            value = _default(f)
        object.__setattr__(made, name, value)
    for f in cls.__dict__["__plain_excluded__"]:
        object.__setattr__(made, f.name, _default(f))
    return made


def _plan(cls: type[Plain]) -> dict[str, tuple[Any, dict[str, Any], Any, dataclasses.Field[Any]]]:
    found: dict[str, Any] | None = cls.__dict__.get("__plain_plan__")
    if found is None:
        hints = _hints(cls)
        every = dataclasses.fields(cls)  # type: ignore[arg-type]
        found = {
            f.name: (hints[f.name], f.metadata.get("constraints", {}), f.metadata.get("after"), f)
            for f in every
            if not f.metadata.get("exclude")
        }
        cls.__plain_excluded__ = [f for f in every if f.metadata.get("exclude")]  # type: ignore[attr-defined]
        cls.__plain_plan__ = found  # type: ignore[attr-defined]
    return found


_BOUNDS = {"ge", "le", "gt", "min_length", "allow_inf_nan", "description"}


def _quick_value(hint: Any, value: Any, constraints: dict[str, Any]) -> Any:
    if not constraints.keys() <= _BOUNDS:
        raise _Unsure
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(hint):
            return None
        inner = [a for a in get_args(hint) if a is not type(None)]
        if len(inner) != 1:
            raise _Unsure
        return _quick_value(inner[0], value, constraints)
    if hint is bool or hint is str:
        if type(value) is not hint:
            raise _Unsure
        if isinstance(value, str) and len(value) < constraints.get("min_length", 0):
            raise _Unsure
        return value
    if hint is int or hint is float:
        if type(value) is not int and not (hint is float and type(value) is float):
            raise _Unsure
        if type(value) is float and value != value or value in (float("inf"), float("-inf")):
            raise _Unsure
        if (
            ("ge" in constraints and not value >= constraints["ge"])
            or ("le" in constraints and not value <= constraints["le"])
            or ("gt" in constraints and not value > constraints["gt"])
        ):
            raise _Unsure
        return float(value) if hint is float else value
    if constraints.keys() - {"description"}:
        raise _Unsure
    if origin is Literal:
        if type(value) is not str or value not in get_args(hint):
            raise _Unsure
        return value
    if origin is list:
        if type(value) is not list:
            raise _Unsure
        return [_quick_value(get_args(hint)[0], v, {}) for v in value]
    if origin is dict:
        if type(value) is not dict:
            raise _Unsure
        key, item = get_args(hint)
        return {_quick_value(key, k, {}): _quick_value(item, v, {}) for k, v in value.items()}
    if isinstance(hint, type) and issubclass(hint, Plain):
        return _quick(hint, value)
    raise _Unsure

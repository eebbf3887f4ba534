"""Shared helpers for the rulesets' character sheets: strict models, fields the rules
manage, labelled enums, readable errors."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from app.engine.contract import Label, Model
from app.engine.errors import InvalidInput

# A sheet part: unknown keys are refused so a typo never silently vanishes.
StrictModel = Model


def set_path(sheet: dict[str, Any], path: str, value: Any) -> Any:
    """Set a dotted path (an effect's `field`) in a sheet; returns the value it replaced."""
    *parents, leaf = path.split(".")
    node = sheet
    for part in parents:
        node = node.setdefault(part, {})
    before = node.get(leaf)
    node[leaf] = value
    return before


def editing(info: ValidationInfo) -> bool:
    """Whether a sheet is validated for an edit (`validate_sheet`), rather than read back
    from storage: only an edit must keep the limits the rules may pass."""
    context = info.context
    return isinstance(context, dict) and bool(context.get("editing"))


class _ReadOnly:
    """The schema of a field the rules manage: readOnly, with the limits an edit keeps."""

    def __init__(
        self,
        extra: dict[str, Any] | Callable[[dict[str, Any]], None] | None,
        limits: dict[str, int],
    ) -> None:
        self.extra = extra
        self.limits = limits

    def __call__(self, schema: dict[str, Any]) -> None:
        if callable(self.extra):
            self.extra(schema)
        elif self.extra:
            schema.update(self.extra)
        schema["readOnly"] = True
        if "ge" in self.limits:
            schema["minimum"] = self.limits["ge"]
        if "le" in self.limits:
            schema["maximum"] = self.limits["le"]
        if "max_length" in self.limits:
            schema["maxItems"] = self.limits["max_length"]

    def check(self, value: Any) -> None:
        """Refuse an edit past a limit, as pydantic words it."""
        if isinstance(value, int) and "ge" in self.limits and value < self.limits["ge"]:
            raise PydanticCustomError(
                "greater_than_equal", "Input should be greater than or equal to {ge}", self.limits
            )
        if isinstance(value, int) and "le" in self.limits and value > self.limits["le"]:
            raise PydanticCustomError(
                "less_than_equal", "Input should be less than or equal to {le}", self.limits
            )
        if isinstance(value, list) and len(value) > self.limits.get("max_length", len(value)):
            raise PydanticCustomError(
                "too_long", "List should have at most {max_length} items", self.limits
            )


def managed(
    default: Any = ...,
    *,
    ge: int | None = None,
    le: int | None = None,
    max_length: int | None = None,
    **kwargs: Any,
) -> Any:
    """A field the rules manage: only rule actions or a GM override change it.

    It is `readOnly` in the sheet's schema, and `managed_fields` lists it, so the schema
    and the service's protection come from this one mark. Its limits bound what an edit
    may write (and are published); the rules may pass them (a 51st wound, a stress of
    100), so a sheet read back from storage is not held to them.
    """
    limits = {
        name: value
        for name, value in (("ge", ge), ("le", le), ("max_length", max_length))
        if value is not None
    }
    extra = _ReadOnly(kwargs.pop("json_schema_extra", None), limits)
    if "default_factory" in kwargs:
        return Field(json_schema_extra=extra, **kwargs)
    return Field(default, json_schema_extra=extra, **kwargs)


def managed_fields(model: type[BaseModel]) -> frozenset[str]:
    """The top-level fields of a sheet that `managed` marked."""
    return frozenset(
        name
        for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, _ReadOnly)
    )


class Sheet(Model):
    """A character sheet: fields the rules manage keep their limits on an edit only."""

    @field_validator("*", mode="after")
    @classmethod
    def _within_edit_limits(cls, value: Any, info: ValidationInfo) -> Any:
        if info.field_name is not None and editing(info):
            extra = cls.model_fields[info.field_name].json_schema_extra
            if isinstance(extra, _ReadOnly):
                extra.check(value)
        return value


def enum_labels(labels: Mapping[str, Label]) -> Callable[[dict[str, Any]], None]:
    """A field's `json_schema_extra` that labels its enum's values, in the enum's order
    (the enum of the field, or of its items for a list).

    `x-enum-descriptions` is what openapi-typescript and openapi-generator read; the
    French labels sit beside the English ones in `x-enum-labels`, one per value.
    """

    def label(schema: dict[str, Any]) -> None:
        values = enum_of(schema) or list(labels)
        schema["x-enum-descriptions"] = [labels[str(v)].en for v in values]
        schema["x-enum-labels"] = [
            {"value": v, "en": labels[str(v)].en, "fr": labels[str(v)].fr} for v in values
        ]

    return label


def enum_of(schema: dict[str, Any]) -> list[Any] | None:
    """The enum a field's schema lists: its own, its items', or a nullable one's."""
    if "enum" in schema:
        return list(schema["enum"])
    if isinstance(schema.get("items"), dict):
        return enum_of(schema["items"])
    for member in schema.get("anyOf", []):
        if isinstance(member, dict) and (found := enum_of(member)):
            return found
    return None


def describe_validation_error(exc: ValidationError, prefix: str) -> InvalidInput:
    """Turn a pydantic error into an InvalidInput whose detail names each field and the fix."""
    errors: list[dict[str, Any]] = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = [prefix, *[str(part) for part in err["loc"]]]
        message = str(err["msg"])
        if message.startswith("Value error, "):
            message = message.removeprefix("Value error, ")
        errors.append({"loc": loc, "msg": message, "type": err["type"]})
    summary = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors[:5])
    if len(errors) > 5:
        summary += f"; and {len(errors) - 5} more"
    return InvalidInput(f"invalid {prefix}: {summary}", errors=errors)

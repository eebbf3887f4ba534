"""The engine's one exception hierarchy. The service maps each class to an HTTP status."""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Root of every error a rule raises. `detail` says what to change; `rule` names the rule id."""

    title = "Rule engine error"

    def __init__(
        self, detail: str, *, rule: str | None = None, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.rule = rule
        self.errors = errors or []


class InvalidInput(EngineError):
    """The request is malformed for the rules (HTTP 422): a value out of range, an unknown id."""

    title = "Invalid input for the rules"


class NotPermitted(EngineError):
    """The caller's role does not allow this (HTTP 403): a player setting what the GM decides."""

    title = "Forbidden"


class RuleRefusal(EngineError):
    """A rule forbids the action now (HTTP 409): a resource is spent, a pre-condition fails.

    The one refusal type of the engine and the services. `recorded_seq` is set when the
    attempt itself belongs in the log (FAB-14's impossible action): the entry is kept and
    the answer is still a refusal that names it.
    """

    title = "Refused by the rules"

    def __init__(
        self, detail: str, *, rule: str | None = None, recorded_seq: int | None = None
    ) -> None:
        super().__init__(detail, rule=rule)
        self.recorded_seq = recorded_seq


def refusal(rule: str, detail: str) -> RuleRefusal:
    """A refusal whose detail starts with the rule id, as every refusal's does."""
    return RuleRefusal(f"{rule}: {detail}", rule=rule)


def invalid(rule: str, detail: str) -> InvalidInput:
    """Input a rule does not allow (422), naming the rule so the problem links to it."""
    return InvalidInput(f"{rule}: {detail}", rule=rule)


def not_permitted(rule: str, detail: str) -> NotPermitted:
    """What a rule leaves to the GM (403), naming the rule so the problem links to it."""
    return NotPermitted(f"{rule}: {detail}", rule=rule)


class DiceError(EngineError):
    """A dice source cannot serve the draw asked for (replay mismatch, exhausted record)."""

    title = "Dice source error"

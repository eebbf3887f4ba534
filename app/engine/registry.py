"""The rulesets the service runs, looked up by system, by kind and by rules version.

`Registry(RULESETS)` is built from one explicit list (`app.engine.rulesets.RULESETS`);
nothing registers itself by being imported. The service, the verifier and the API's
schemas all read the same registry, so a ruleset added to the list is served, documented
and verified without another change.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.engine.contract import (
    AnyKind,
    ClockRequest,
    ClockResult,
    Language,
    Resolution,
    RollKind,
    Ruleset,
    RulesVersion,
    System,
)
from app.engine.dice import DiceSource
from app.engine.errors import InvalidInput
from app.engine.rulesets import RULESETS

SESSION_STARTED = "session_started"
SCENE_STARTED = "scene_started"
CLOCK_KINDS = (SESSION_STARTED, SCENE_STARTED)
# Entries the audit checks by structure only: they carry no rule to replay.
STRUCTURAL_KINDS = frozenset(
    {
        "epoch_opened",
        "client_seed_set",
        "epoch_closed",
        "sheet_edit",
        "sheet_override",
        "options_changed",
        "encounter.created",
        "encounter.joined",
        "encounter.left",
        "encounter.turn",
        "encounter.ended",
        "disclosed",
        "effects_applied",
        "roll_requested",
        "roll_request_cancelled",
    }
)
FAIRNESS_PREFIX = "FAIR"
RULES_ID = re.compile(r"(?P<ruleset>[a-z0-9][a-z0-9-]{0,39})@(?P<version>[1-9][0-9]{0,5})")
RULE_ID = re.compile(r"(?P<prefix>[A-Z]+)-[0-9]+[a-z]?")


def _clock_kind(ruleset: Ruleset, name: str) -> AnyKind:
    """The session or scene start of one ruleset: its recharges, resolved and replayed."""

    def resolve(
        request: ClockRequest, dice: DiceSource, version: RulesVersion
    ) -> Resolution[ClockResult]:
        effects = ruleset.recharges(request, version) if ruleset.recharges else []
        return Resolution(ClockResult(session=request.session, scene=request.scene), effects)

    def summary(request: ClockRequest, result: ClockResult, language: Language) -> str:
        if name == SESSION_STARTED and language == "fr":
            return f"Séance {result.session}, scène {result.scene}"
        if name == SESSION_STARTED:
            return f"Session {result.session}, scene {result.scene}"
        return f"Scène {result.scene}" if language == "fr" else f"Scene {result.scene}"

    return RollKind(
        name=name,
        title="Session start" if name == SESSION_STARTED else "Scene start",
        request=ClockRequest,
        result=ClockResult,
        resolve=resolve,
        summary=summary,
        is_roll=False,
    )


@functools.lru_cache(maxsize=64)
def _rules_id(recorded: str) -> tuple[str, int] | None:
    """("vampire", 1) for "vampire@1": read once per distinct value, not once per entry."""
    match = RULES_ID.fullmatch(recorded)
    return (match["ruleset"], int(match["version"])) if match else None


@dataclass(frozen=True)
class Rules:
    """The ruleset, rules version and kind that resolve (or resolved) one entry."""

    ruleset: Ruleset
    version: RulesVersion
    kind: AnyKind

    @property
    def rules_id(self) -> str:
        return f"{self.ruleset.id}@{self.version}"


class Registry:
    """Every ruleset of the service, with the lookups the service and the verifier need."""

    def __init__(self, rulesets: Sequence[Ruleset]) -> None:
        self.rulesets = tuple(rulesets)
        self._by_id: dict[str, Ruleset] = {}
        self._systems: dict[str, tuple[Ruleset, System]] = {}
        self._kinds: dict[tuple[str, str], AnyKind] = {}
        self._owners: dict[str, Ruleset] = {}
        self._prefixes: dict[str, Ruleset] = {}
        self._resolved: dict[tuple[str, str], Rules] = {}  # (kind, rules) → for_entry
        for ruleset in self.rulesets:
            self._add(ruleset)

    def _add(self, ruleset: Ruleset) -> None:
        if ruleset.id in self._by_id or not RULES_ID.fullmatch(f"{ruleset.id}@1"):
            raise ValueError(f"ruleset id {ruleset.id!r} is taken or not a lowercase slug")
        self._by_id[ruleset.id] = ruleset
        for system in ruleset.systems:
            if system.id in self._systems:
                raise ValueError(f"system {system.id!r} is registered twice")
            self._systems[system.id] = (ruleset, system)
        kinds = list(ruleset.kinds)
        if not ruleset.generic:
            kinds += [_clock_kind(ruleset, name) for name in CLOCK_KINDS]
        for kind in kinds:
            if kind.name in STRUCTURAL_KINDS or (ruleset.id, kind.name) in self._kinds:
                raise ValueError(f"entry kind {kind.name!r} is registered twice")
            self._kinds[(ruleset.id, kind.name)] = kind
            if kind.name in CLOCK_KINDS:
                continue
            if kind.name in self._owners:
                raise ValueError(f"entry kind {kind.name!r} belongs to two rulesets")
            self._owners[kind.name] = ruleset
        for prefix in ruleset.rule_prefixes:
            if prefix in self._prefixes or prefix == FAIRNESS_PREFIX:
                raise ValueError(f"rule prefix {prefix!r} is taken")
            self._prefixes[prefix] = ruleset

    # --- systems --------------------------------------------------------------------------

    @property
    def systems(self) -> list[tuple[Ruleset, System]]:
        return list(self._systems.values())

    def system(self, system_id: str) -> tuple[Ruleset, System]:
        """The ruleset and system of a campaign, or InvalidInput naming the known ones."""
        try:
            return self._systems[system_id]
        except KeyError:
            known = ", ".join(self._systems)
            raise InvalidInput(f"unknown system '{system_id}'; known systems: {known}") from None

    def has_system(self, system_id: str) -> bool:
        return system_id in self._systems

    # --- kinds ----------------------------------------------------------------------------

    def kinds(self) -> Iterator[tuple[Ruleset, AnyKind]]:
        """Every kind once by name (the clock kinds share one contract across rulesets)."""
        seen: set[str] = set()
        for (ruleset_id, name), kind in self._kinds.items():
            if name not in seen:
                seen.add(name)
                yield self._by_id[ruleset_id], kind

    def campaign_kinds(self, system_id: str) -> list[AnyKind]:
        """Every kind a campaign of this system can hold: its ruleset's (the clock's
        included) that run in its system, and the generic rulesets'."""
        ruleset, _ = self.system(system_id)
        return [
            kind
            for (owner_id, _name), kind in self._kinds.items()
            if (owner_id == ruleset.id or self._by_id[owner_id].generic)
            and (kind.systems is None or system_id in kind.systems)
        ]

    def postable_kinds(self) -> list[AnyKind]:
        """The kinds a client may post to POST .../rolls."""
        return [kind for _, kind in self.kinds() if kind.body is not None]

    def is_roll(self, name: str) -> bool:
        owner = self._owners.get(name)
        return owner is not None and self._kinds[(owner.id, name)].is_roll

    def entry_kinds(self) -> frozenset[str]:
        """Every kind an entry of the log can have: the rulesets' and the service's own."""
        return frozenset(self._owners) | STRUCTURAL_KINDS | frozenset(CLOCK_KINDS)

    def roll_kind_names(self) -> list[str]:
        return [name for name in self._owners if self.is_roll(name)]

    def in_campaign(self, system_id: str, name: str) -> Rules:
        """What resolves a kind in a campaign of this system now, or why it cannot run."""
        ruleset, _ = self.system(system_id)
        kind = self._kinds.get((ruleset.id, name))
        owner = ruleset
        if kind is None:
            owner_ = self._owners.get(name)
            if owner_ is None:
                raise InvalidInput(f"unknown roll kind '{name}'")
            if not owner_.generic:
                raise InvalidInput(
                    f"{name} is a {owner_.name} roll; this campaign plays {system_id}"
                )
            owner, kind = owner_, self._kinds[(owner_.id, name)]
        if kind.systems is not None and system_id not in kind.systems:
            if kind.wrong_system is not None:
                raise kind.wrong_system(system_id)
            settings = ", ".join(sorted(kind.systems))
            raise InvalidInput(f"{name} runs only in {settings}; this campaign plays {system_id}")
        return Rules(owner, owner.version, kind)

    def sibling(self, rules: Rules, name: str) -> Rules:
        """Another kind of the same ruleset, at the same version (a triggered follow-on)."""
        kind = self._kinds.get((rules.ruleset.id, name))
        if kind is None:
            raise InvalidInput(f"{rules.ruleset.id} has no entry kind '{name}'")
        return Rules(rules.ruleset, rules.version, kind)

    def for_entry(self, entry: Mapping[str, Any]) -> Rules:
        """The ruleset, version and kind an entry was resolved with (its `rules`, or for an
        entry from before rules versions, the ruleset that owned its kind then: version 1).

        Raises InvalidInput saying why the entry cannot be replayed.
        """
        name = str(entry.get("kind"))
        recorded = entry.get("rules")
        known = self._resolved.get((name, recorded)) if isinstance(recorded, str) else None
        if known is not None:
            return known  # verification asks this for every entry: most share a few versions
        if recorded is None:
            ruleset = self._legacy_owner(name, entry.get("request"))
            version = 1
        else:
            parsed = _rules_id(recorded) if isinstance(recorded, str) else None
            found = self._by_id.get(parsed[0]) if parsed else None
            if parsed is None or found is None:
                raise InvalidInput(f"entry resolved under unknown rules {recorded!r}")
            ruleset, version = found, parsed[1]
            if version > ruleset.version:
                raise InvalidInput(
                    f"entry resolved under {recorded}, newer than this verifier's "
                    f"{ruleset.rules_id}"
                )
        kind = self._kinds.get((ruleset.id, name))
        if kind is None:
            raise InvalidInput(f"{ruleset.id} has no entry kind '{name}'")
        rules = Rules(ruleset, version, kind)
        if isinstance(recorded, str):
            self._resolved[(name, recorded)] = rules  # only valid pairs: bounded
        return rules

    def _legacy_owner(self, name: str, request: object) -> Ruleset:
        if name in CLOCK_KINDS:
            family = request.get("family") if isinstance(request, Mapping) else None
            for ruleset in self.rulesets:
                if ruleset.legacy_family is not None and ruleset.legacy_family == family:
                    return ruleset
            raise InvalidInput(f"a {name} entry of unknown family {family!r}")
        owner = self._owners.get(name)
        if owner is None:
            raise InvalidInput(f"unknown entry kind '{name}'")
        return owner


# The service's registry: the one list of rulesets in app.engine.rulesets.
DEFAULT_REGISTRY = Registry(RULESETS)

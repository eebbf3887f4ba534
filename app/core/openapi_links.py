"""OpenAPI links: which value of a response names the resource of a next call.

A client (or a stateful fuzzer such as schemathesis) follows them from a created campaign to
its rolls, log, characters, encounters, members, invitations and roll requests, and from each
of those to the operations on it. Links are keyed by operationId and use runtime expressions
($response.body#/id, $request.path.campaign_id); `requestBody` values are merged by
schemathesis into the body it generates, so a linked call keeps its other fields.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

_CAMPAIGN_ID: Final = "$response.body#/campaign_id"
_RESPONSE_ID: Final = "$response.body#/id"
_PATH_CAMPAIGN_ID: Final = "$request.path.campaign_id"
_RESPONSE_SEQ: Final = "$response.body#/seq"

# Operations under /campaigns/{campaign_id}: all they need is the campaign's id.
_CAMPAIGN_OPERATIONS: Final = (
    "campaigns-get",
    "campaigns-update",
    "campaigns-start-session",
    "campaigns-start-scene",
    "rolls-create",
    "rolls-list",
    "odds-compute",
    "log-list",
    "log-verify",
    "log-export",
    "log-disclose",
    "stats-get",
    "roll-requests-create",
    "roll-requests-list",
    "members-create",
    "members-list",
    "invitations-create",
    "invitations-list",
    "characters-create",
    "characters-list",
    "fairness-get",
    "fairness-set-client-seed",
    "fairness-rotate",
    "encounters-create",
    "encounters-list",
    # Last: following it ends what the campaign's other links can reach.
    "campaigns-delete",
)
_ENCOUNTER_OPERATIONS: Final = (
    "encounters-get",
    "encounters-add-combatant",
    "encounters-initiative",
    "encounters-act",
    "encounters-next",
    "encounters-end",
)

_Link = dict[str, Any]


def _link(
    target: str,
    description: str,
    parameters: Mapping[str, str] | None = None,
    request_body: Any = None,
) -> tuple[str, _Link]:
    link: _Link = {"operationId": target, "description": description}
    if parameters:
        link["parameters"] = dict(parameters)
    if request_body is not None:
        link["requestBody"] = request_body
    return target, link


def _campaign(campaign_id: str, *targets: str) -> Iterator[tuple[str, _Link]]:
    for target in targets:
        yield _link(target, "the same campaign", {"campaign_id": campaign_id})


def _encounter(encounter_id: str, *targets: str) -> Iterator[tuple[str, _Link]]:
    for target in targets:
        yield _link(target, "the same encounter", {"encounter_id": encounter_id})


def _entry(campaign_id: str, seq: str) -> Iterator[tuple[str, _Link]]:
    """A log entry (a roll, a clock advance, a disclosure) and what can be done with it."""
    params = {"campaign_id": campaign_id, "seq": seq}
    yield _link("rolls-get", "the entry just written", params)
    yield _link("log-apply-held-effects", "apply the entry's held effects", params)
    yield _link(
        "log-disclose",
        "disclose the entry",
        {"campaign_id": campaign_id},
        {"seqs": [seq]},
    )


def _links() -> dict[tuple[str, str], list[tuple[str, _Link]]]:
    """(source operationId, status code) -> its links, named after their target."""
    encounter_id = "$response.body#/encounter/id"
    return {
        # Campaigns
        ("campaigns-create", "201"): [*_campaign(_RESPONSE_ID, *_CAMPAIGN_OPERATIONS)],
        ("campaigns-get", "200"): [*_campaign(_RESPONSE_ID, "campaigns-update", "rolls-create")],
        ("campaigns-update", "200"): [*_campaign(_RESPONSE_ID, "campaigns-get", "rolls-create")],
        ("campaigns-list", "200"): [
            *_campaign("$response.body#/data/0/id", "campaigns-get", "rolls-list")
        ],
        ("campaigns-start-session", "201"): [
            *_campaign(_PATH_CAMPAIGN_ID, "campaigns-start-scene", "log-verify"),
            *_entry(_PATH_CAMPAIGN_ID, _RESPONSE_SEQ),
        ],
        ("campaigns-start-scene", "201"): [
            *_campaign(_PATH_CAMPAIGN_ID, "rolls-create", "log-verify"),
            *_entry(_PATH_CAMPAIGN_ID, _RESPONSE_SEQ),
        ],
        # Rolls and the log
        ("rolls-create", "201"): [
            *_entry(_PATH_CAMPAIGN_ID, _RESPONSE_SEQ),
            *_campaign(
                _PATH_CAMPAIGN_ID, "rolls-list", "log-list", "log-verify", "log-export", "stats-get"
            ),
        ],
        ("log-disclose", "201"): [
            *_campaign(_PATH_CAMPAIGN_ID, "log-verify"),
            _link(
                "rolls-get",
                "the disclosure entry",
                {"campaign_id": _PATH_CAMPAIGN_ID, "seq": _RESPONSE_SEQ},
            ),
        ],
        ("log-apply-held-effects", "201"): [
            *_campaign(_PATH_CAMPAIGN_ID, "log-verify"),
            _link(
                "rolls-get",
                "the entry of the applied effects",
                {"campaign_id": _PATH_CAMPAIGN_ID, "seq": _RESPONSE_SEQ},
            ),
        ],
        # Roll requests
        ("roll-requests-create", "201"): [
            *_campaign(_CAMPAIGN_ID, "roll-requests-list"),
            *(
                _link(
                    target,
                    "the same roll request",
                    {"campaign_id": _CAMPAIGN_ID, "request_id": _RESPONSE_ID},
                )
                for target in ("roll-requests-get", "roll-requests-cancel")
            ),
            _link(
                "rolls-create",
                "answer the roll request",
                {"campaign_id": _CAMPAIGN_ID, "query.request_id": _RESPONSE_ID},
            ),
        ],
        ("roll-requests-get", "200"): [
            _link(
                "rolls-create",
                "answer the roll request",
                {"campaign_id": _CAMPAIGN_ID, "query.request_id": _RESPONSE_ID},
            ),
        ],
        # Members and invitations
        ("members-create", "201"): [
            *_campaign(_PATH_CAMPAIGN_ID, "members-list"),
            _link(
                "members-delete",
                "remove the member just added",
                {"campaign_id": _PATH_CAMPAIGN_ID, "user_id": "$response.body#/user_id"},
            ),
        ],
        ("invitations-create", "201"): [
            *_campaign(_CAMPAIGN_ID, "invitations-list"),
            _link("invitations-accept", "accept the invitation", {"code": "$response.body#/code"}),
            _link(
                "invitations-revoke",
                "revoke the invitation",
                {"campaign_id": _CAMPAIGN_ID, "invitation_id": _RESPONSE_ID},
            ),
        ],
        # Characters
        ("characters-create", "201"): [
            *(
                _link(target, "the same character", {"character_id": _RESPONSE_ID})
                for target in ("characters-get", "characters-update", "characters-delete")
            ),
            *_campaign(_CAMPAIGN_ID, "characters-list"),
            _link(
                "rolls-create",
                "a roll for the character",
                {"campaign_id": _CAMPAIGN_ID},
                {"character_id": _RESPONSE_ID},
            ),
            _link(
                "rolls-list",
                "the character's rolls",
                {"campaign_id": _CAMPAIGN_ID, "query.character_id": _RESPONSE_ID},
            ),
            _link(
                "odds-compute",
                "the odds of a roll for the character",
                {"campaign_id": _CAMPAIGN_ID},
                {"character_id": _RESPONSE_ID},
            ),
            _link(
                "encounters-create",
                "an encounter with the character",
                {"campaign_id": _CAMPAIGN_ID},
                {"combatants": [{"character_id": _RESPONSE_ID}]},
            ),
        ],
        ("characters-get", "200"): [
            _link("characters-update", "the same character", {"character_id": _RESPONSE_ID}),
        ],
        ("characters-update", "200"): [
            _link("characters-get", "the same character", {"character_id": _RESPONSE_ID}),
            _link(
                "rolls-create",
                "a roll for the character",
                {"campaign_id": _CAMPAIGN_ID},
                {"character_id": _RESPONSE_ID},
            ),
        ],
        # Fairness
        ("fairness-rotate", "201"): [
            *_campaign(_CAMPAIGN_ID, "fairness-get", "log-verify", "rolls-create"),
        ],
        ("fairness-set-client-seed", "200"): [
            *_campaign(_CAMPAIGN_ID, "fairness-rotate", "rolls-create"),
        ],
        # Encounters
        ("encounters-create", "201"): [
            *_encounter(_RESPONSE_ID, *_ENCOUNTER_OPERATIONS),
            *_campaign(_CAMPAIGN_ID, "encounters-list"),
        ],
        ("encounters-add-combatant", "201"): [
            *_encounter(_RESPONSE_ID, "encounters-get", "encounters-initiative"),
            _link(
                "encounters-remove-combatant",
                "remove the combatant just added",
                {"encounter_id": _RESPONSE_ID, "character_id": "$request.body#/character_id"},
            ),
        ],
        ("encounters-initiative", "200"): [
            *_encounter(_RESPONSE_ID, "encounters-act", "encounters-next", "encounters-end"),
        ],
        ("encounters-act", "201"): [
            *_encounter(encounter_id, "encounters-get", "encounters-act", "encounters-next"),
            _link(
                "rolls-get",
                "the entry of the action",
                {
                    "campaign_id": "$response.body#/encounter/campaign_id",
                    "seq": "$response.body#/entry/seq",
                },
            ),
        ],
        ("encounters-next", "200"): [
            *_encounter(_RESPONSE_ID, "encounters-act", "encounters-next", "encounters-end"),
        ],
        ("encounters-end", "200"): [
            *_encounter(_RESPONSE_ID, "encounters-get"),
            *_campaign(_CAMPAIGN_ID, "log-verify"),
        ],
        # Rulesets
        ("systems-list", "200"): [
            _link(target, "the first system", {"system_id": "$response.body#/data/0/id"})
            for target in ("systems-get", "systems-rules")
        ],
    }


def add_links(schema: dict[str, Any]) -> dict[str, Any]:
    """Add the `links` of each linked response to the OpenAPI document `schema`, in place.

    Raises LookupError when a source or target operationId, or a source response, is missing
    from the document, so a renamed route cannot silently drop its links.
    """
    operations: dict[str, dict[str, Any]] = {
        operation["operationId"]: operation
        for path_item in schema.get("paths", {}).values()
        for operation in path_item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    for (source, status), links in _links().items():
        if source not in operations:
            raise LookupError(f"OpenAPI links: no operation {source!r}")
        response = operations[source].get("responses", {}).get(status)
        if response is None:
            raise LookupError(f"OpenAPI links: {source!r} has no {status} response")
        declared = response.setdefault("links", {})
        for name, link in links:
            if link["operationId"] not in operations:
                raise LookupError(f"OpenAPI links: {source!r} links to unknown {name!r}")
            if name in declared:
                raise LookupError(f"OpenAPI links: {source!r} {status} has two links {name!r}")
            declared[name] = link
    return schema

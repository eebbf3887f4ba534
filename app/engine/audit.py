"""The hash-chained audit log (FAIR-10..15): canonical content, hashes, and verification.

`verify_log` is shared by the service (GET /log/verify) and the offline verifier
(`nocturne-verify`): it needs nothing but the entries, in seq order.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson
import rfc8785
from pydantic import ValidationError

from app.engine.canonical import (
    HAS_FLOAT,
    PLAIN,
    canonical_json,
    decoded_canonical_json,
    scan_json,
)
from app.engine.dice import Draw, HmacSha256, ReplayDice, commitment, stream_gives
from app.engine.errors import DiceError, EngineError
from app.engine.hidden import (
    COMMIT_KEY,
    FAIRNESS_VERSION,
    NPC_IDENTITY,
    check_key,
    has_commitment,
    is_commitment,
    npc_value_paths,
    open_commitments,
)
from app.engine.registry import STRUCTURAL_KINDS, Registry

GENESIS_HASH = "0" * 64
CLIENT_SEED = re.compile(r"[A-Za-z0-9_-]{0,64}")
HEX_64 = re.compile(r"[0-9a-f]{64}")
HASH_FIELDS = ("prev_hash", "content_hash", "hash")
# FAIR-17/18: a hidden entry's key and what opens its commitments, given to whoever may
# see them, outside its hashed content.
KEY_FIELDS = ("entry_key", "proof", "disclosures")
NOT_HASHED = (*HASH_FIELDS, *KEY_FIELDS)
REDACTED_FIELDS = ("seq", "epoch", "kind", "visibility", "created_at", *HASH_FIELDS)
CONTENT_FIELDS = (
    "seq",
    "epoch",
    "kind",
    "created_at",
    "actor_id",
    "character_id",
    "visibility",
    "request",
    "draws",
    "result",
    "effects",
)
ENTRY_FIELDS = (*CONTENT_FIELDS, *HASH_FIELDS)
_FIELD_SETS = {False: frozenset(ENTRY_FIELDS), True: frozenset(REDACTED_FIELDS)}  # by redacted
# Optional content fields: `follows` on follow-ups (FAIR-9), `rules` on every entry the
# rules resolve (absent from entries made before rules versions: version 1).


def content_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    """FAIR-11: the entry without its three hash fields (nor a hidden entry's key, FAIR-17)."""
    content = dict(entry)  # a copy, then six removals: cheaper than filtering every key
    for key in NOT_HASHED:
        content.pop(key, None)
    return content


def content_hash(entry: Mapping[str, Any], scanned: int | None = None) -> str:
    return hashlib.sha256(canonical_json(content_of(entry), scanned)).hexdigest()


def chain_hash(prev_hash: str, seq: int, content_digest: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{seq}:{content_digest}".encode()).hexdigest()


def seal(content: Mapping[str, Any], prev_hash: str) -> dict[str, Any]:
    """The entry with its prev_hash, content_hash and hash (FAIR-11)."""
    # One walk for both: whatever is plain with the hash fields is plain without them.
    scanned = scan_json(content)
    if scanned == HAS_FLOAT:
        raise EngineError("a log entry may not hold a floating-point number (FAIR-10)")
    digest = content_hash(content, scanned)
    return {
        **content,
        "prev_hash": prev_hash,
        "content_hash": digest,
        "hash": chain_hash(prev_hash, int(content["seq"]), digest),
    }


def redact(entry: Mapping[str, Any]) -> dict[str, Any]:
    """FAIR-13: what a member who may not see an entry gets: enough to check the chain."""
    redacted = {key: entry[key] for key in REDACTED_FIELDS}
    redacted["redacted"] = True
    return redacted


@dataclass
class Failure:
    seq: int | None
    reason: str


@dataclass
class Report:
    ok: bool = True
    entries_checked: int = 0
    rederived: int = 0
    replayed: int = 0
    # Entries with draws not re-derived, and entries checked by their hashes only, by reason.
    not_rederived: dict[str, int] = field(default_factory=dict)
    chain_only: dict[str, int] = field(default_factory=dict)
    first_failure: Failure | None = None

    def count(self, tally: dict[str, int], reason: str) -> None:
        tally[reason] = tally.get(reason, 0) + 1

    def as_dict(self) -> dict[str, Any]:
        failure = None
        if self.first_failure is not None:
            failure = {"seq": self.first_failure.seq, "reason": self.first_failure.reason}
        return {
            "ok": self.ok,
            "entries_checked": self.entries_checked,
            "rederived": self.rederived,
            "replayed": self.replayed,
            "not_rederived": dict(self.not_rederived),
            "chain_only": dict(self.chain_only),
            "first_failure": failure,
        }


class _Stop(Exception):
    def __init__(self, seq: int | None, reason: str) -> None:
        self.failure = Failure(seq, reason)


@dataclass
class _Epoch:
    commitment: str | None = None
    campaign_id: str | None = None
    client_seed: str = ""
    first_roll_seq: int | None = None
    closed: bool = False
    opened_seq: int = 0
    hidden_root: str | None = None  # FAIR-16, on epochs opened under fairness 2
    stream_key: HmacSha256 | None = None  # the revealed seed's, built on its first use


@dataclass
class _Seen:
    """What the walk keeps of earlier entries for the disclosures that name them (FAIR-19):
    each entry's epoch, and the entries holding commitments, as hashed."""

    epochs: dict[int, int] = field(default_factory=dict)
    committed: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    # and what the replays made gave (`_replay`)
    replays: dict[bytes, tuple[Any, Any] | str] = field(default_factory=dict)


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_object(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """A JSON object: a dict, at once, or another Mapping (the ABC's check is slower)."""
    return type(value) is dict or isinstance(value, Mapping)


def revealed_seeds(entries: Iterable[Mapping[str, Any]]) -> dict[int, bytes]:
    """Seeds published by epoch_closed entries that match their epoch's first commitment.

    Read ahead so draws can be re-derived before the reveal is reached; whether each
    reveal is legitimate is then checked in order, at its own seq.
    """
    commitments: dict[int, str] = {}
    seeds: dict[int, bytes] = {}
    for entry in entries:
        result, epoch = entry.get("result"), entry.get("epoch")
        if entry.get("redacted") or not _is_object(result) or type(epoch) is not int:
            continue
        if entry.get("kind") == "epoch_opened" and isinstance(result.get("commitment"), str):
            commitments.setdefault(epoch, result["commitment"])
        elif entry.get("kind") == "epoch_closed" and isinstance(result.get("server_seed"), str):
            try:
                seed = bytes.fromhex(result["server_seed"])
            except ValueError:
                continue
            if len(seed) == 32 and commitments.get(epoch) == commitment(seed):
                seeds.setdefault(epoch, seed)
    return seeds


def verify_log(
    entries: Iterable[Mapping[str, Any]],
    *,
    registry: Registry,
    campaign_id: str | None = None,
    head: tuple[int, str] | None = None,
    seeds: Mapping[int, bytes] | None = None,
) -> Report:
    """FAIR-14: check the chain, the epochs, re-derive closed epochs' draws, replay every roll.

    `entries` are JSON values as `decode_json` reads them (no NaN or infinity posing as a
    float, no type JSON lacks): the service's log and nocturne-verify's export both are.
    `head` is the (seq, hash) the log must end on; without it a log cut after a whole entry
    cannot be told from a complete one. `seeds` is `revealed_seeds` of the log's epoch
    entries, when the caller can read them ahead: `entries` is then streamed, not held.
    """
    ordered: Iterable[Mapping[str, Any]] = entries
    if seeds is None:
        ordered = list(entries)
        seeds = revealed_seeds(ordered)
    report = Report()
    epochs: dict[int, _Epoch] = {}
    seen = _Seen()
    prev_hash = GENESIS_HASH
    expected_seq = 1
    try:
        for entry in ordered:
            if not _is_object(entry):
                raise _Stop(expected_seq, "entry is not a JSON object")
            _check_entry(
                entry,
                expected_seq,
                prev_hash,
                epochs,
                seeds,
                report,
                campaign_id,
                registry,
                seen,
            )
            seen.epochs[expected_seq] = entry["epoch"]
            report.entries_checked += 1
            prev_hash = str(entry["hash"])
            expected_seq += 1
        last = expected_seq - 1
        if head is not None and (last, prev_hash) != head:
            if head[0] > last:
                raise _Stop(
                    last + 1,
                    f"the log ends at seq {last} but its head is seq {head[0]}: "
                    "entries are missing",
                )
            raise _Stop(
                head[0], f"the log does not end on its head (seq {head[0]}, hash {head[1]})"
            )
    except _Stop as stop:
        report.ok = False
        report.first_failure = stop.failure
    return report


def _check_entry(
    entry: Mapping[str, Any],
    expected_seq: int,
    prev_hash: str,
    epochs: dict[int, _Epoch],
    seeds: Mapping[int, bytes],
    report: Report,
    campaign_id: str | None,
    registry: Registry,
    seen: _Seen,
) -> None:
    redacted = entry.get("redacted") is True
    required = REDACTED_FIELDS if redacted else ENTRY_FIELDS
    raw_seq = entry.get("seq")
    seq = raw_seq if type(raw_seq) is int else None
    body = None
    if not redacted and _hashed_fields_plain(entry):
        body = decoded_canonical_json(content_of(entry))
    scanned = PLAIN
    if body is None:  # the full walk: a float anywhere fails, whatever else is wrong
        scanned = scan_json(entry)  # the hash fields are plain strings: same status as content
        if scanned == HAS_FLOAT:
            raise _Stop(seq or expected_seq, "entry holds a floating-point number (FAIR-10)")
    if not entry.keys() >= _FIELD_SETS[redacted]:  # one C comparison on every entry
        missing = [name for name in required if name not in entry]
        raise _Stop(seq or expected_seq, f"entry lacks {', '.join(missing)}")
    if seq != expected_seq:
        raise _Stop(seq or expected_seq, f"seq gap: expected {expected_seq}, found {raw_seq!r}")
    if entry["prev_hash"] != prev_hash:
        raise _Stop(seq, f"prev_hash does not link to the hash of entry {seq - 1}")
    # As a key, "$commit" can only appear in the canonical bytes as `"$commit":`: inside a
    # string its quotes are escaped. One C search instead of walking the entry (FAIR-18).
    committed = False
    if not redacted:
        if body is None:
            try:
                body = canonical_json(content_of(entry), scanned)
            except (rfc8785.CanonicalizationError, TypeError) as exc:
                # An integer past ±(2^53 − 1), a lone surrogate: no canonical form (RFC 8785).
                raise _Stop(seq, f"entry has no RFC 8785 canonical form: {exc}") from None
        if hashlib.sha256(body).hexdigest() != entry["content_hash"]:
            raise _Stop(seq, "content_hash does not match the entry's content")
        committed = COMMIT_KEY in body
        if committed:
            seen.committed[seq] = entry
    if chain_hash(prev_hash, seq, str(entry["content_hash"])) != entry["hash"]:
        raise _Stop(seq, "hash does not match prev_hash, seq and content_hash")

    kind, epoch_number = entry["kind"], entry["epoch"]
    if not isinstance(kind, str):
        raise _Stop(seq, "kind must be a string")
    if type(epoch_number) is not int or epoch_number < 1:
        raise _Stop(seq, f"epoch must be a positive integer, got {epoch_number!r}")
    if kind == "epoch_opened":
        _open(seq, epoch_number, epochs)
    epoch = epochs.get(epoch_number)
    if epoch is None:
        raise _Stop(seq, f"epoch {epoch_number} is used before its commitment was published")
    if epoch.closed:
        raise _Stop(seq, f"entry in epoch {epoch_number} after its seed was revealed (FAIR-4)")
    # FAIR-20: an entry that draws a die is a roll, whatever its kind.
    if epoch.first_roll_seq is None and (registry.is_roll(kind) or _draws_dice(entry, redacted)):
        epoch.first_roll_seq = seq
    if redacted:
        report.count(report.chain_only, "redacted: hidden from whoever verifies (FAIR-13)")
        return  # the chain is checked; the content is not ours to see

    fairness = entry.get("fairness", 1)
    if fairness not in (1, FAIRNESS_VERSION) or type(fairness) is not int:
        raise _Stop(seq, f"fairness must be 1 or {FAIRNESS_VERSION}, got {fairness!r}")
    result = entry["result"]
    if not _is_object(result):
        raise _Stop(seq, "result must be an object")
    if kind == "epoch_opened":
        _record_commitment(seq, epoch, result, campaign_id, fairness)
    elif kind == "client_seed_set":
        _record_client_seed(seq, epoch, result)
    elif kind == "epoch_closed":
        _check_reveal(seq, epoch_number, epoch, result)
    elif kind == "disclosed":
        _check_disclosure(seq, epochs, result, seen)
    elif kind not in STRUCTURAL_KINDS:
        if not isinstance(entry["draws"], list) or not _is_object(entry["request"]):
            raise _Stop(seq, "draws must be a list and request an object")
        if entry["draws"]:
            _check_draws(entry, seq, epoch_number, epoch, seeds, report, fairness)
        opened = _opened(entry, seq, registry) if committed or "disclosures" in entry else entry
        if opened is None:
            report.count(report.chain_only, COMMITTED_INPUTS)
            return
        _replay(opened, seq, registry, seen.replays)
        report.replayed += 1


def _draws_dice(entry: Mapping[str, Any], redacted: bool) -> bool:
    return not redacted and isinstance(entry["draws"], list) and bool(entry["draws"])


def _hashed_fields_plain(entry: Mapping[str, Any]) -> bool:
    """Whether only the content can hold what the fast path must catch: the hash fields are
    strings and no key or disclosure is attached (those the full walk checks too)."""
    return (
        type(entry.get("prev_hash")) is str
        and type(entry.get("content_hash")) is str
        and type(entry.get("hash")) is str
        and "entry_key" not in entry  # KEY_FIELDS, tested one by one: no generator
        and "proof" not in entry
        and "disclosures" not in entry
    )


COMMITTED_INPUTS = "not replayed: inputs committed, not disclosed to whoever verifies (FAIR-18)"


def _opened(entry: Mapping[str, Any], seq: int, registry: Registry) -> Mapping[str, Any] | None:
    """FAIR-18: the entry with its disclosed values in place of their commitments, or None
    while some value it replays with stays committed."""
    disclosures = entry.get("disclosures")
    opened = entry
    if disclosures is not None:
        if not isinstance(disclosures, list):
            raise _Stop(seq, "disclosures must be a list")
        try:
            opened = open_commitments(entry, disclosures, canonical_json)
        except EngineError as exc:
            raise _Stop(seq, exc.detail) from None
    if any(has_commitment(opened[part]) for part in ("request", "result", "effects")):
        misplaced = misplaced_commitment(entry, _npc_values(entry, registry))
        if misplaced is not None:
            raise _Stop(seq, f"a commitment stands where no hidden value may, at {misplaced}")
        return None
    return opened


def _npc_values(entry: Mapping[str, Any], registry: Registry) -> frozenset[str]:
    """The result values the entry's kind shows from an NPC's sheet (FAIR-18)."""
    request, result = entry.get("request"), entry.get("result")
    if not isinstance(request, Mapping) or not isinstance(result, Mapping):
        return frozenset()
    try:
        declared = registry.for_entry(entry).kind.npc_values
    except EngineError:
        return frozenset()  # the replay says why the kind is unknown
    return frozenset(npc_value_paths(request, result, declared))


def misplaced_commitment(
    entry: Mapping[str, Any], npc_values: frozenset[str] = frozenset()
) -> str | None:
    """FAIR-18 hides an NPC's values, nothing else: a commitment may stand only for a value
    of an object describing an NPC (`kind: "npc"`, beside its identity), for a value the
    kind shows from an NPC's sheet (`npc_values`, pointers) or for the before or after of
    an effect. The path of the first one elsewhere, or None."""
    stack: list[tuple[Any, str, bool]] = [
        (entry.get("request"), "/request", False),
        (entry.get("result"), "/result", False),
    ]
    for index, change in enumerate(entry.get("effects") or []):
        if isinstance(change, Mapping):
            for key, value in change.items():
                stack.append((value, f"/effects/{index}/{key}", key in ("before", "after")))
    while stack:
        node, path, may_commit = stack.pop()
        if is_commitment(node):
            if not may_commit and path not in npc_values:
                return path
            continue
        if isinstance(node, Mapping):
            npc = node.get("kind") == "npc"
            for key, child in node.items():
                stack.append((child, f"{path}/{key}", npc and key not in NPC_IDENTITY))
        elif isinstance(node, list):
            stack.extend((child, f"{path}/{i}", False) for i, child in enumerate(node))
    return None


def _check_draws(
    entry: Mapping[str, Any],
    seq: int,
    epoch_number: int,
    epoch: _Epoch,
    seeds: Mapping[int, bytes],
    report: Report,
    fairness: int,
) -> None:
    """FAIR-14/17: re-derive the draws from the revealed seed, or a hidden entry's from its
    own key once its proof leads to the root its epoch published."""
    if fairness >= FAIRNESS_VERSION and entry["visibility"] != "public":
        if epoch.hidden_root is None:
            raise _Stop(
                seq,
                f"hidden entry under fairness 2 but epoch {epoch_number} "
                "published no hidden_root (FAIR-16)",
            )
        if "entry_key" not in entry:
            report.count(report.not_rederived, "hidden entry given without its entry key (FAIR-17)")
            return
        try:
            key = check_key(
                entry["entry_key"], entry.get("proof"), seq - epoch.opened_seq, epoch.hidden_root
            )
        except EngineError as exc:
            raise _Stop(seq, exc.detail) from None
        _rederive(entry, seq, epoch_number, epoch, key)
        report.rederived += 1
        return
    revealed = seeds.get(epoch_number)
    if revealed is None:
        report.count(report.not_rederived, "its epoch's seed is not revealed yet (FAIR-4)")
        return
    if epoch.stream_key is None:
        epoch.stream_key = HmacSha256(revealed)
    _rederive(entry, seq, epoch_number, epoch, revealed, epoch.stream_key)
    report.rederived += 1


def _check_disclosure(
    seq: int, epochs: dict[int, _Epoch], result: Mapping[str, Any], seen: _Seen
) -> None:
    """FAIR-19: every key a disclosure publishes leads to its epoch's root, so the disclosed
    entries' dice are the ones committed when their epoch opened; every value it publishes
    opens the commitment it names (FAIR-18), when that entry was not redacted here."""
    disclosed = result.get("entries")
    if not isinstance(disclosed, list):
        raise _Stop(seq, "a disclosure lists its entries")
    for item in disclosed:
        target = item.get("seq") if isinstance(item, Mapping) else None
        if not _is_int(target) or target not in seen.epochs:
            raise _Stop(seq, f"the disclosure names no earlier entry: {item!r}")
        values = item.get("disclosures")
        if values is not None:
            committed = seen.committed.get(target)
            if committed is not None:
                try:
                    open_commitments(committed, values, canonical_json)
                except EngineError as exc:
                    raise _Stop(seq, f"disclosed entry {target}: {exc.detail}") from None
        if item.get("entry_key") is None:
            continue  # an entry from before FAIR-16: disclosed, but keyed by its epoch seed
        epoch = epochs[seen.epochs[target]]
        if epoch.hidden_root is None:
            raise _Stop(seq, f"entry {target} has a key but its epoch published no root")
        try:
            check_key(
                item["entry_key"], item.get("proof"), target - epoch.opened_seq, epoch.hidden_root
            )
        except EngineError as exc:
            raise _Stop(seq, f"disclosed entry {target}: {exc.detail}") from None


def _open(seq: int, number: int, epochs: dict[int, _Epoch]) -> None:
    """FAIR-4: epochs open in order, each after the previous one was closed."""
    if number in epochs or (number != 1 and number - 1 not in epochs):
        raise _Stop(seq, f"epoch {number} opened out of order")
    if number > 1 and not epochs[number - 1].closed:
        raise _Stop(seq, f"epoch {number} opened before epoch {number - 1} was closed (FAIR-4)")
    epochs[number] = _Epoch(opened_seq=seq)


def _record_commitment(
    seq: int, epoch: _Epoch, result: Mapping[str, Any], campaign_id: str | None, fairness: int
) -> None:
    digest, owner = result.get("commitment"), result.get("campaign_id")
    if not isinstance(digest, str) or len(digest) != 64:
        raise _Stop(seq, "epoch_opened carries no SHA-256 commitment")
    if fairness >= FAIRNESS_VERSION:
        root = result.get("hidden_root")
        if not isinstance(root, str) or not HEX_64.fullmatch(root):
            raise _Stop(seq, "epoch_opened under fairness 2 carries no hidden_root (FAIR-16)")
        epoch.hidden_root = root
    if owner is not None and campaign_id is not None and owner != campaign_id:
        raise _Stop(seq, f"epoch_opened belongs to campaign {owner}, not {campaign_id}")
    epoch.commitment = digest
    epoch.campaign_id = owner if isinstance(owner, str) else campaign_id


def _record_client_seed(seq: int, epoch: _Epoch, result: Mapping[str, Any]) -> None:
    """FAIR-1/FAIR-3: 0..64 of [A-Za-z0-9_-], set before the epoch's first roll."""
    if epoch.first_roll_seq is not None:
        raise _Stop(seq, "client seed changed after the epoch's first roll (FAIR-3)")
    client_seed = result.get("client_seed", "")
    if not isinstance(client_seed, str) or not CLIENT_SEED.fullmatch(client_seed):
        raise _Stop(seq, "client seed is not 0..64 characters of [A-Za-z0-9_-] (FAIR-1)")
    epoch.client_seed = client_seed


def _check_reveal(seq: int, number: int, epoch: _Epoch, result: Mapping[str, Any]) -> None:
    seed_hex = result.get("server_seed")
    try:
        seed = bytes.fromhex(seed_hex) if isinstance(seed_hex, str) else b""
    except ValueError:
        raise _Stop(seq, "revealed server_seed is not hex") from None
    if len(seed) != 32 or commitment(seed) != epoch.commitment:
        raise _Stop(seq, f"revealed seed does not match the commitment of epoch {number}")
    epoch.closed = True


def _rederive(
    entry: Mapping[str, Any],
    seq: int,
    epoch_number: int,
    epoch: _Epoch,
    seed: bytes,
    key: HmacSha256 | None = None,
) -> None:
    """The draws are the stream of `seed`: the epoch's revealed seed, or an entry key."""
    owner = epoch.campaign_id
    if owner is None:
        raise _Stop(seq, "the campaign id is unknown, so draws cannot be re-derived")
    draws: list[Draw] = entry["draws"]
    try:
        if len(seed) != 32:
            raise DiceError("a server seed is 32 bytes")
        signer = key if key is not None else HmacSha256(seed)
        matches = stream_gives(signer, owner, epoch_number, epoch.client_seed, seq, draws)
    except (EngineError, KeyError, TypeError) as exc:
        raise _Stop(seq, f"draws cannot be re-derived: {exc!r}") from None
    if not matches:
        raise _Stop(seq, "draws do not match the revealed seed's stream (FAIR-6)")


# Replays kept per verification: a long log repeats the same small rolls many times.
MAX_KEPT_REPLAYS = 4096


def _replay(
    entry: Mapping[str, Any],
    seq: int,
    registry: Registry,
    replays: dict[bytes, tuple[Any, Any] | str],
) -> None:
    """FAIR-14: the request and draws, through the rules of the entry's version, give the
    recorded result and effects.

    The rules are pure and deterministic, so an entry whose kind, rules, request and draws
    are those of an entry already replayed gives what that one gave: it is read from
    `replays`, keyed by those four values' JSON, and compared with this entry's own.
    """
    try:
        key: bytes | None = orjson.dumps(
            (entry["kind"], entry.get("rules"), entry["request"], entry["draws"])
        )
    except orjson.JSONEncodeError:  # not plain JSON: replayed, not kept
        key = None
    replayed = replays.get(key) if key is not None else None
    if replayed is None:
        replayed = _replay_outcome(entry, registry)
        if key is not None:
            if len(replays) >= MAX_KEPT_REPLAYS:
                replays.clear()
            replays[key] = replayed
    if isinstance(replayed, str):
        raise _Stop(seq, replayed)
    result, effects = replayed
    if result != entry["result"]:
        raise _Stop(seq, "replaying the request and draws gives another result")
    if effects != entry["effects"]:
        raise _Stop(seq, "replaying the request and draws gives other effects")


def _replay_outcome(entry: Mapping[str, Any], registry: Registry) -> tuple[Any, Any] | str:
    """The result and effects the rules give the entry's request and draws, as the log
    stores them, or why the rules give none."""
    try:
        rules = registry.for_entry(entry)
    except EngineError as exc:
        return exc.detail
    dice = ReplayDice(entry["draws"])
    try:
        request = rules.kind.parse_request(entry["request"])
        if rules.kind.replay is not None:  # the stored result itself, no model (no effects)
            outcome: tuple[Any, Any] = (rules.kind.replay(request, dice, rules.version), [])
        else:
            resolution = rules.kind.resolve(request, dice, rules.version)
            outcome = (
                resolution.result.dump(),
                [effect.dump() for effect in resolution.effects],
            )
        dice.assert_consumed()
    except EngineError as exc:
        return f"replay failed: {exc.detail}"
    except ValidationError as exc:
        where = ".".join(str(part) for part in exc.errors()[0]["loc"])
        return f"replay failed: the request does not fit its kind at {where}"
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return f"replay failed: malformed request ({exc!r})"
    return outcome

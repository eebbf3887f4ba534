"""The hash-chained audit log (FAIR-10..15): canonical content, hashes, and verification.

`verify_log` is shared by the service (GET /log/verify) and the offline verifier
(`nocturne-verify`): it needs nothing but the entries, in seq order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import rfc8785

from app.engine import catalog as kinds
from app.engine.dice import Draw, ReplayDice, commitment, rederive_faces
from app.engine.errors import EngineError

GENESIS_HASH = "0" * 64
HASH_FIELDS = ("prev_hash", "content_hash", "hash")
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


def content_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    """FAIR-11: the entry without its three hash fields."""
    return {key: value for key, value in entry.items() if key not in HASH_FIELDS}


def canonical_json(value: Any) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) bytes."""
    return rfc8785.dumps(value)


def content_hash(entry: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(content_of(entry))).hexdigest()


def chain_hash(prev_hash: str, seq: int, content_digest: str) -> str:
    return hashlib.sha256(f"{prev_hash}:{seq}:{content_digest}".encode()).hexdigest()


def seal(content: Mapping[str, Any], prev_hash: str) -> dict[str, Any]:
    """The entry with its prev_hash, content_hash and hash (FAIR-11)."""
    if find_float(content):
        raise EngineError("a log entry may not hold a floating-point number (FAIR-10)")
    digest = content_hash(content)
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


def find_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, Mapping):
        return any(find_float(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(find_float(v) for v in value)
    return False


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
    first_failure: Failure | None = None

    def as_dict(self) -> dict[str, Any]:
        failure = None
        if self.first_failure is not None:
            failure = {"seq": self.first_failure.seq, "reason": self.first_failure.reason}
        return {
            "ok": self.ok,
            "entries_checked": self.entries_checked,
            "rederived": self.rederived,
            "replayed": self.replayed,
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
    seed: bytes | None = None
    revealed: set[int] = field(default_factory=set)


def _revealed_seeds(entries: Sequence[Mapping[str, Any]]) -> dict[int, bytes]:
    """Seeds published by epoch_closed entries that match their epoch's commitment."""
    commitments: dict[int, str] = {}
    seeds: dict[int, bytes] = {}
    for entry in entries:
        if entry.get("redacted"):
            continue
        result = entry.get("result")
        if not isinstance(result, Mapping):
            continue
        if entry.get("kind") == "epoch_opened" and isinstance(result.get("commitment"), str):
            commitments[int(entry["epoch"])] = result["commitment"]
        elif entry.get("kind") == "epoch_closed":
            try:
                seed = bytes.fromhex(str(result.get("server_seed")))
            except ValueError:
                continue
            epoch = int(entry["epoch"])
            if len(seed) == 32 and commitments.get(epoch) == commitment(seed):
                seeds[epoch] = seed
    return seeds


def verify_log(entries: Iterable[Mapping[str, Any]], *, campaign_id: str | None = None) -> Report:
    """FAIR-14: check the chain, the epochs, re-derive closed epochs' draws, replay every roll."""
    ordered = list(entries)
    report = Report()
    seeds = _revealed_seeds(ordered)
    epochs: dict[int, _Epoch] = {}
    prev_hash = GENESIS_HASH
    expected_seq = 1
    for entry in ordered:
        seq = entry.get("seq") if isinstance(entry.get("seq"), int) else None
        try:
            _check_entry(entry, expected_seq, prev_hash, epochs, seeds, report, campaign_id)
        except _Stop as stop:
            report.ok = False
            report.first_failure = stop.failure
            return report
        report.entries_checked += 1
        prev_hash = str(entry["hash"])
        expected_seq = (seq or 0) + 1
    return report


def _check_entry(
    entry: Mapping[str, Any],
    expected_seq: int,
    prev_hash: str,
    epochs: dict[int, _Epoch],
    seeds: dict[int, bytes],
    report: Report,
    campaign_id: str | None,
) -> None:
    redacted = bool(entry.get("redacted"))
    required = REDACTED_FIELDS if redacted else (*CONTENT_FIELDS, *HASH_FIELDS)
    raw_seq = entry.get("seq")
    seq = raw_seq if isinstance(raw_seq, int) and not isinstance(raw_seq, bool) else None
    missing = [name for name in required if name not in entry]
    if missing:
        raise _Stop(seq, f"entry lacks {', '.join(missing)}")
    if seq != expected_seq:
        raise _Stop(seq, f"seq gap: expected {expected_seq}, found {raw_seq}")
    if find_float(entry):
        raise _Stop(seq, "entry holds a floating-point number (FAIR-10)")
    if entry["prev_hash"] != prev_hash:
        raise _Stop(seq, f"prev_hash does not link to the hash of entry {seq - 1}")
    if not redacted and content_hash(entry) != entry["content_hash"]:
        raise _Stop(seq, "content_hash does not match the entry's content")
    if chain_hash(prev_hash, seq, str(entry["content_hash"])) != entry["hash"]:
        raise _Stop(seq, "hash does not match prev_hash, seq and content_hash")

    kind = str(entry["kind"])
    epoch_number = entry["epoch"]
    if not isinstance(epoch_number, int) or epoch_number < 1:
        raise _Stop(seq, f"epoch must be a positive integer, got {epoch_number!r}")
    if kind == "epoch_opened":
        if epoch_number in epochs or (epoch_number - 1 not in epochs and epoch_number != 1):
            raise _Stop(seq, f"epoch {epoch_number} opened out of order")
        epochs[epoch_number] = _Epoch()
    epoch = epochs.get(epoch_number)
    if epoch is None:
        raise _Stop(seq, f"epoch {epoch_number} is used before its commitment was published")
    if redacted:
        if kinds.is_roll_kind(kind) and epoch.first_roll_seq is None:
            epoch.first_roll_seq = seq
        return

    result = entry["result"]
    if kind == "epoch_opened":
        epoch.commitment = str(result.get("commitment"))
        epoch.campaign_id = result.get("campaign_id") or campaign_id
    elif kind == "client_seed_set":
        if epoch.first_roll_seq is not None:
            raise _Stop(seq, "client seed changed after the epoch's first roll (FAIR-3)")
        epoch.client_seed = str(result.get("client_seed", ""))
    elif kind == "epoch_closed":
        seed_hex = str(result.get("server_seed"))
        try:
            seed = bytes.fromhex(seed_hex)
        except ValueError:
            raise _Stop(seq, "revealed server_seed is not hex") from None
        if commitment(seed) != epoch.commitment:
            raise _Stop(seq, f"revealed seed does not match the commitment of epoch {epoch_number}")
    elif kind in kinds.KINDS:
        if kinds.is_roll_kind(kind) and epoch.first_roll_seq is None:
            epoch.first_roll_seq = seq
        draws = entry["draws"]
        revealed = seeds.get(epoch_number)
        if revealed is not None and draws:
            _rederive(entry, seq, epoch_number, epoch, revealed, campaign_id)
            report.rederived += 1
        _replay(entry, seq, kind)
        report.replayed += 1
    elif kind not in kinds.STRUCTURAL_KINDS:
        raise _Stop(seq, f"unknown entry kind '{kind}'")


def _rederive(
    entry: Mapping[str, Any],
    seq: int,
    epoch_number: int,
    epoch: _Epoch,
    seed: bytes,
    campaign_id: str | None,
) -> None:
    owner = epoch.campaign_id or campaign_id
    if owner is None:
        raise _Stop(seq, "the campaign id is unknown, so draws cannot be re-derived")
    draws: list[Draw] = list(entry["draws"])
    try:
        faces = rederive_faces(
            seed, owner, epoch_number, epoch.client_seed, seq, [d["sides"] for d in draws]
        )
    except (EngineError, KeyError, TypeError) as exc:
        raise _Stop(seq, f"draws cannot be re-derived: {exc}") from None
    if faces != [d["face"] for d in draws]:
        raise _Stop(seq, "draws do not match the revealed seed's stream (FAIR-6)")


def _replay(entry: Mapping[str, Any], seq: int, kind: str) -> None:
    dice = ReplayDice(entry["draws"])
    try:
        resolution = kinds.resolve(kind, entry["request"], dice)
        dice.assert_consumed()
    except EngineError as exc:
        raise _Stop(seq, f"replay failed: {exc.detail}") from None
    except (KeyError, TypeError, ValueError) as exc:
        raise _Stop(seq, f"replay failed: malformed request ({exc!r})") from None
    if resolution.result != entry["result"]:
        raise _Stop(seq, "replaying the request and draws gives another result")
    if resolution.effects != entry["effects"]:
        raise _Stop(seq, "replaying the request and draws gives other effects")

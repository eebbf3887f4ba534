"""FAIR-14: `verify_log` on synthetic logs built like the service builds them.

The builder below mirrors app/services/log.py (append_entry, open_epoch, rotate_epoch,
set_client_seed, record): same entry shapes, same stream (nonce = seq), same
sealing. Each tampering test says which seq must fail and why.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest

from app.engine import audit
from app.engine.audit import (
    GENESIS_HASH,
    chain_hash,
    content_hash,
    redact,
    revealed_seeds,
    seal,
)
from app.engine.canonical import decode_json
from app.engine.dice import HmacDiceStream, ReplayDice, commitment
from app.engine.errors import EngineError
from tests.engine.rules import resolve, verify_log

CAMPAIGN_ID = "c0ffee00-0000-4000-8000-000000000001"
GM_ID = "5a1e0000-0000-4000-8000-00000000000a"
PLAYER_ID = "5a1e0000-0000-4000-8000-00000000000b"
CHARACTER_ID = "c4a40000-0000-4000-8000-000000000001"
SEEDS = {1: bytes(range(32)), 2: bytes(range(32, 64)), 3: bytes(range(64, 96))}
WRONG_SEED = bytes(range(100, 132))

ROLLS_EPOCH_1 = ("2d6+3", "3d6kh2", "1d12", "4d10-1")


class LogBuilder:
    """Appends sealed entries the way app/services/log.py does."""

    def __init__(self, campaign_id: str = CAMPAIGN_ID) -> None:
        self.campaign_id = campaign_id
        self.entries: list[dict[str, Any]] = []
        self.current_epoch = 0
        self.client_seeds: dict[int, str] = {}

    @property
    def next_seq(self) -> int:
        return len(self.entries) + 1

    def append(
        self,
        *,
        kind: str,
        epoch: int | None = None,
        actor_id: str = GM_ID,
        character_id: str | None = None,
        visibility: str = "public",
        request: dict[str, Any] | None = None,
        draws: list[dict[str, Any]] | None = None,
        result: dict[str, Any] | None = None,
        effects: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        seq = self.next_seq
        content = {
            "seq": seq,
            "epoch": epoch if epoch is not None else self.current_epoch,
            "kind": kind,
            "created_at": f"2026-11-29T12:{seq // 60:02d}:{seq % 60:02d}.{seq:06d}Z",
            "actor_id": actor_id,
            "character_id": character_id,
            "visibility": visibility,
            "request": request or {},
            "draws": draws or [],
            "result": result or {},
            "effects": effects or [],
        }
        prev_hash = self.entries[-1]["hash"] if self.entries else GENESIS_HASH
        entry = seal(content, prev_hash)
        self.entries.append(entry)
        return entry

    def open_epoch(self) -> None:
        number = self.current_epoch + 1
        self.append(
            kind="epoch_opened",
            epoch=number,
            result={"campaign_id": self.campaign_id, "commitment": commitment(SEEDS[number])},
        )
        self.current_epoch = number

    def set_client_seed(self, client_seed: str) -> None:
        self.append(
            kind="client_seed_set",
            actor_id=PLAYER_ID,
            request={"client_seed": client_seed},
            result={"client_seed": client_seed},
        )
        self.client_seeds[self.current_epoch] = client_seed

    def roll(
        self, notation: str, *, visibility: str = "public", epoch: int | None = None
    ) -> dict[str, Any]:
        number = epoch if epoch is not None else self.current_epoch
        request = {"notation": notation}
        dice = HmacDiceStream(
            SEEDS[number],
            self.campaign_id,
            number,
            self.client_seeds.get(number, ""),
            self.next_seq,
        )
        resolution = resolve("dice", request, dice)
        return self.append(
            kind="dice",
            epoch=number,
            actor_id=PLAYER_ID,
            character_id=CHARACTER_ID,
            visibility=visibility,
            request=request,
            draws=[dict(draw) for draw in dice.draws],
            result=resolution.result,
            effects=resolution.effects,
        )

    def rotate(self) -> None:
        number = self.current_epoch
        self.append(
            kind="epoch_closed",
            epoch=number,
            result={"server_seed": SEEDS[number].hex(), "commitment": commitment(SEEDS[number])},
        )
        self.open_epoch()


def build_log(*, client_seed: str | None = "table-42") -> list[dict[str, Any]]:
    """seq 1 epoch_opened, 2 client_seed_set, 3..6 rolls, 7 epoch_closed, 8 epoch_opened,
    9 a roll in epoch 2 (still secret)."""
    log = LogBuilder()
    log.open_epoch()
    if client_seed is not None:
        log.set_client_seed(client_seed)
    for notation in ROLLS_EPOCH_1:
        log.roll(notation)
    log.rotate()
    log.roll("1d20")
    return log.entries


def reseal(entries: list[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    """Recompute content_hash, hash and prev_hash from index `start` on (a forger's rewrite)."""
    prev_hash = entries[start - 1]["hash"] if start else GENESIS_HASH
    out = list(entries[:start])
    for entry in entries[start:]:
        content = {k: v for k, v in entry.items() if k not in ("prev_hash", "content_hash", "hash")}
        sealed = seal(content, prev_hash)
        out.append(sealed)
        prev_hash = sealed["hash"]
    return out


def failure(entries: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """The report of a log that must fail, without its tallies of what was not re-derived
    (they count only the entries before the failure; valid logs test them)."""
    report = verify_log(entries, **kwargs).as_dict()
    assert report["ok"] is False
    del report["not_rederived"], report["chain_only"]
    return report


def by_seq(entries: list[dict[str, Any]], seq: int) -> dict[str, Any]:
    (entry,) = [e for e in entries if e["seq"] == seq]
    return entry


# --- a valid log ---------------------------------------------------------------------------


def test_FAIR_14_the_service_shaped_log_verifies():
    entries = build_log()
    assert [e["kind"] for e in entries] == [
        "epoch_opened",
        "client_seed_set",
        "dice",
        "dice",
        "dice",
        "dice",
        "epoch_closed",
        "epoch_opened",
        "dice",
    ]
    assert [e["epoch"] for e in entries] == [1, 1, 1, 1, 1, 1, 1, 2, 2]
    assert entries[0]["prev_hash"] == GENESIS_HASH
    for before, after in itertools.pairwise(entries):
        assert after["prev_hash"] == before["hash"]
    assert verify_log(entries).as_dict() == {
        "ok": True,
        "entries_checked": 9,
        "rederived": 4,  # the rolls of closed epoch 1 (seq 3..6); epoch 2's seed is secret
        "replayed": 5,  # every roll
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": 1},  # seq 9
        "chain_only": {},
        "first_failure": None,
    }


def test_FAIR_14_campaign_id_argument_is_not_needed_when_epoch_opened_names_it():
    entries = build_log()
    assert verify_log(entries, campaign_id=CAMPAIGN_ID).as_dict() == verify_log(entries).as_dict()


def test_FAIR_14_a_log_without_client_seed_verifies():
    entries = build_log(client_seed=None)
    report = verify_log(entries)
    assert (report.ok, report.entries_checked, report.rederived, report.replayed) == (
        True,
        8,
        4,
        5,
    )


def test_FAIR_6_each_epoch_re_derives_with_its_own_seed_and_client_seed():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.set_client_seed("alpha")  # 2
    log.roll("3d6")  # 3
    log.rotate()  # 4 closed, 5 opened epoch 2
    log.set_client_seed("beta_2-B")  # 6
    log.roll("2d20kh1")  # 7
    log.roll("5")  # 8: a constant only: replayed, nothing to re-derive
    log.rotate()  # 9 closed, 10 opened epoch 3
    log.roll("1d100")  # 11
    assert verify_log(log.entries).as_dict() == {
        "ok": True,
        "entries_checked": 11,
        "rederived": 2,
        "replayed": 4,
        "not_rederived": {
            "its epoch's seed is not revealed yet (FAIR-4)": 1
        },  # seq 11: epoch 3 is open
        "chain_only": {},
        "first_failure": None,
    }


def test_FAIR_14_the_recorded_draws_are_the_stream_for_nonce_seq():
    entries = build_log()
    roll = by_seq(entries, 4)
    stream = HmacDiceStream(SEEDS[1], CAMPAIGN_ID, 1, "table-42", 4)
    faces = [stream.roll(6) for _ in range(3)]
    assert [d["face"] for d in roll["draws"]] == faces
    assert roll["result"]["terms"][0]["dice"] == faces


# --- tampering: content and chain -----------------------------------------------------------


def test_FAIR_11_a_changed_result_field_breaks_the_content_hash():
    entries = copy.deepcopy(build_log())
    entries[3]["result"]["total"] += 1
    assert failure(entries) == {
        "ok": False,
        "entries_checked": 3,
        "rederived": 1,
        "replayed": 1,
        "first_failure": {"seq": 4, "reason": "content_hash does not match the entry's content"},
    }


def test_FAIR_11_a_changed_hash_breaks_the_chain():
    entries = copy.deepcopy(build_log())
    entries[4]["hash"] = "f" * 64
    report = failure(entries)
    assert report["first_failure"] == {
        "seq": 5,
        "reason": "hash does not match prev_hash, seq and content_hash",
    }


def test_FAIR_11_an_entry_resealed_alone_breaks_the_next_link():
    entries = copy.deepcopy(build_log())
    entries[3]["result"]["total"] += 1
    forged = reseal(entries[:4], 3) + entries[4:]
    report = failure(forged)
    # seq 4 itself now fails its replay; seq 5 would no longer link.
    assert report["first_failure"] == {
        "seq": 4,
        "reason": "replaying the request and draws gives another result",
    }
    forged[3] = copy.deepcopy(build_log()[3])
    forged[3]["created_at"] = "2026-11-29T13:00:00.000000Z"
    forged = reseal(forged[:4], 3) + forged[4:]
    assert failure(forged)["first_failure"] == {
        "seq": 5,
        "reason": "prev_hash does not link to the hash of entry 4",
    }


# --- tampering: draws --------------------------------------------------------------------------


def test_FAIR_6_a_changed_face_in_a_closed_epoch_fails_re_derivation():
    entries = copy.deepcopy(build_log())
    roll = entries[3]  # seq 4, 3d6kh2, epoch 1 (closed)
    face = roll["draws"][0]["face"]
    roll["draws"][0]["face"] = face % 6 + 1
    # The forger also recomputes the result so the replay agrees, then re-seals the chain.
    roll["result"] = resolve("dice", roll["request"], ReplayDice(roll["draws"])).result
    forged = reseal(entries, 3)
    assert failure(forged) == {
        "ok": False,
        "entries_checked": 3,
        "rederived": 1,
        "replayed": 1,
        "first_failure": {
            "seq": 4,
            "reason": "draws do not match the revealed seed's stream (FAIR-6)",
        },
    }


def test_FAIR_14_a_changed_face_in_an_open_epoch_fails_the_replay():
    entries = copy.deepcopy(build_log())
    roll = entries[8]  # seq 9, 1d20, epoch 2 (seed still secret)
    roll["draws"][0]["face"] = roll["draws"][0]["face"] % 20 + 1
    forged = reseal(entries, 8)
    assert failure(forged) == {
        "ok": False,
        "entries_checked": 8,
        "rederived": 4,
        "replayed": 4,
        "first_failure": {
            "seq": 9,
            "reason": "replaying the request and draws gives another result",
        },
    }


# build_log's epoch 2, closed and its seed revealed (FAIR-4): seq 10, to seal after seq 9.
EPOCH_2_CLOSING = {
    "seq": 10,
    "epoch": 2,
    "kind": "epoch_closed",
    "created_at": "2026-11-29T12:00:10.000010Z",
    "actor_id": GM_ID,
    "character_id": None,
    "visibility": "public",
    "request": {},
    "draws": [],
    "result": {"server_seed": SEEDS[2].hex(), "commitment": commitment(SEEDS[2])},
    "effects": [],
}


def test_FAIR_14_an_open_epoch_cannot_catch_a_consistent_forgery_until_its_seed_is_revealed():
    entries = copy.deepcopy(build_log())
    roll = entries[8]
    roll["draws"][0]["face"] = roll["draws"][0]["face"] % 20 + 1
    roll["result"] = resolve("dice", roll["request"], ReplayDice(roll["draws"])).result
    forged = reseal(entries, 8)
    # Face and result agree and the chain is intact: nothing to see while epoch 2 is secret.
    assert verify_log(forged).ok is True
    # Once epoch 2 is closed and its seed revealed, the same entry fails re-derivation.
    closed = [*forged, seal(EPOCH_2_CLOSING, forged[-1]["hash"])]
    assert failure(closed)["first_failure"] == {
        "seq": 9,
        "reason": "draws do not match the revealed seed's stream (FAIR-6)",
    }
    # And the honest log with the same closing entry verifies, epoch 2 re-derived too.
    honest = build_log()
    closing_honest = seal(EPOCH_2_CLOSING, honest[-1]["hash"])
    report = verify_log([*honest, closing_honest])
    assert (report.ok, report.entries_checked, report.rederived, report.replayed) == (
        True,
        10,
        5,
        5,
    )


def streamed(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """verify_log as the service runs it: seeds read ahead from the epoch entries only,
    then the entries handed over as a one-pass iterator."""
    epochs = [e for e in entries if e["kind"] in ("epoch_opened", "epoch_closed")]
    return verify_log(iter(entries), seeds=revealed_seeds(epochs)).as_dict()


def test_FAIR_14_streamed_verification_reports_exactly_what_the_whole_log_does():
    entries = build_log()
    closing = seal(EPOCH_2_CLOSING, entries[-1]["hash"])
    forged = copy.deepcopy([*entries, closing])
    roll = forged[8]
    roll["draws"][0]["face"] = roll["draws"][0]["face"] % 20 + 1
    roll["result"] = resolve("dice", roll["request"], ReplayDice(roll["draws"])).result
    forged = reseal(forged, 8)
    tampered = copy.deepcopy(entries)
    tampered[3]["result"]["total"] += 1
    for log in (entries, [*entries, closing], forged, tampered):
        assert streamed(log) == verify_log(log).as_dict()
    assert streamed(forged)["first_failure"]["seq"] == 9
    assert streamed(tampered)["first_failure"]["seq"] == 4


def test_FAIR_8_an_extra_recorded_die_fails_the_replay():
    entries = copy.deepcopy(build_log())
    entries[8]["draws"].append({"sides": 20, "face": 1})
    forged = reseal(entries, 8)
    assert failure(forged)["first_failure"] == {
        "seq": 9,
        "reason": "replay failed: 2 dice were recorded but the rules used 1",
    }


def test_FAIR_8_a_die_of_other_sides_fails_the_replay():
    entries = copy.deepcopy(build_log())
    entries[8]["draws"][0]["sides"] = 12
    forged = reseal(entries, 8)
    assert failure(forged)["first_failure"] == {
        "seq": 9,
        "reason": "replay failed: die #1: the rules asked for a d20, the record holds a d12",
    }


def test_FAIR_14_a_changed_request_fails_the_replay():
    entries = copy.deepcopy(build_log())
    entries[8]["request"]["notation"] = "1d20+1"
    forged = reseal(entries, 8)
    assert failure(forged)["first_failure"] == {
        "seq": 9,
        "reason": "replaying the request and draws gives another result",
    }
    entries[8]["request"]["notation"] = "1d20*2"
    forged = reseal(entries, 8)
    reason = failure(forged)["first_failure"]["reason"]
    assert reason.startswith("replay failed: invalid dice notation '1d20*2': expected + or -")


def _repeated_rolls(times: int, *, last_result: dict[str, Any] | None = None) -> LogBuilder:
    """An open epoch (its draws not re-derived) rolling 3d6kh2 with the same faces `times`
    times, then once more with `last_result`, when given, sealed as it is."""
    log = LogBuilder()
    log.open_epoch()
    draws = [{"sides": 6, "face": 2}, {"sides": 6, "face": 5}, {"sides": 6, "face": 6}]
    resolved = resolve("dice", {"notation": "3d6kh2"}, ReplayDice(draws))
    results = [resolved.result] * times + ([last_result] if last_result is not None else [])
    for result in results:
        log.append(
            kind="dice",
            actor_id=PLAYER_ID,
            request={"notation": "3d6kh2"},
            draws=copy.deepcopy(draws),
            result=copy.deepcopy(result),
            effects=[],
        )
    return log


@pytest.mark.parametrize("kept", [1, 4096])
def test_FAIR_14_a_repeated_roll_is_replayed_once_and_a_changed_result_still_fails(
    kept, monkeypatch
):
    """Verification keeps what each replay gave by the entry's kind, rules, request and
    draws (the rules are deterministic), and compares each entry's own result and effects
    with it: equal entries verify, each counted as replayed, and the same roll with another
    result fails, whatever the replays kept."""
    monkeypatch.setattr(audit, "MAX_KEPT_REPLAYS", kept)
    assert verify_log(_repeated_rolls(3).entries).as_dict() == {
        "ok": True,
        "entries_checked": 4,
        "rederived": 0,
        "replayed": 3,
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": 3},
        "chain_only": {},
        "first_failure": None,
    }
    first = _repeated_rolls(1).entries[1]["result"]
    forged = _repeated_rolls(3, last_result={**first, "total": 12})
    assert failure(forged.entries)["first_failure"] == {
        "seq": 5,
        "reason": "replaying the request and draws gives another result",
    }


def test_FAIR_10_a_null_written_as_nan_fails_though_orjson_writes_nan_as_null():
    """An export line where null became NaN, its hashes those of the null: decode_json makes
    the NaN no JSON value, so the entry has no canonical form and fails at its seq."""
    entries = build_log()
    assert entries[0]["character_id"] is None
    lines = [json.dumps(entry) for entry in entries]
    lines[0] = lines[0].replace('"character_id": null', '"character_id": NaN')
    report = failure([decode_json(line) for line in lines])
    assert report["first_failure"]["seq"] == 1
    assert report["first_failure"]["reason"].startswith("entry has no RFC 8785 canonical form")


# --- tampering: order and completeness --------------------------------------------------------


def test_FAIR_5_a_deleted_entry_leaves_a_seq_gap():
    entries = build_log()
    del entries[4]  # seq 5
    assert failure(entries) == {
        "ok": False,
        "entries_checked": 4,
        "rederived": 2,
        "replayed": 2,
        "first_failure": {"seq": 6, "reason": "seq gap: expected 5, found 6"},
    }


def test_FAIR_6_a_deletion_renumbered_and_resealed_fails_re_derivation():
    # A forger who closes the gap must renumber, which changes the nonce of every later roll.
    entries = copy.deepcopy(build_log())
    del entries[4]
    for entry in entries[4:]:
        entry["seq"] -= 1
    forged = reseal(entries, 4)
    assert failure(forged)["first_failure"] == {
        "seq": 5,  # the former seq 6 (4d10-1), now re-derived with nonce 5
        "reason": "draws do not match the revealed seed's stream (FAIR-6)",
    }


def test_FAIR_5_two_swapped_entries_are_out_of_sequence():
    entries = build_log()
    entries[3], entries[4] = entries[4], entries[3]  # seq 5 now before seq 4
    assert failure(entries) == {
        "ok": False,
        "entries_checked": 3,
        "rederived": 1,
        "replayed": 1,
        "first_failure": {"seq": 5, "reason": "seq gap: expected 4, found 5"},
    }


def test_FAIR_6_two_swapped_entries_renumbered_and_resealed_fail_re_derivation():
    entries = copy.deepcopy(build_log())
    entries[3], entries[4] = entries[4], entries[3]
    entries[3]["seq"], entries[4]["seq"] = 4, 5
    forged = reseal(entries, 3)
    assert failure(forged)["first_failure"] == {
        "seq": 4,  # 1d12 drawn with nonce 5, re-derived with nonce 4
        "reason": "draws do not match the revealed seed's stream (FAIR-6)",
    }


@pytest.mark.parametrize(
    ("length", "rederived", "replayed"),
    [(1, 0, 0), (2, 0, 0), (3, 0, 1), (4, 0, 2), (5, 0, 3), (6, 0, 4), (7, 4, 4), (8, 4, 4)],
)
def test_FAIR_14_a_truncated_tail_still_verifies_as_a_prefix(length, rederived, replayed):
    # The log holds no count of its own entries: a prefix is a valid log, so without an
    # anchor kept elsewhere (`head`: the campaign's last seq and hash, the export's Log-Head)
    # truncation cannot be seen. What it does change: cut before epoch_closed, the epoch's
    # rolls are no longer re-derived (rederived drops to 0), because the reveal went with
    # the tail.
    prefix = build_log()[:length]
    assert verify_log(prefix).as_dict() == {
        "ok": True,
        "entries_checked": length,
        "rederived": rederived,
        "replayed": replayed,
        # every roll of build_log draws dice: those not re-derived wait for their reveal
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": replayed - rederived}
        if replayed > rederived
        else {},
        "chain_only": {},
        "first_failure": None,
    }
    assert prefix[-1]["hash"] == build_log()[length - 1]["hash"]


def test_FAIR_14_a_truncated_tail_is_caught_against_the_head():
    full = build_log()
    head = (9, full[-1]["hash"])
    assert verify_log(full, head=head).ok is True
    assert verify_log(full[:6], head=head).as_dict() == {
        "ok": False,
        "entries_checked": 6,
        "rederived": 0,
        "replayed": 4,
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": 4},
        "chain_only": {},
        "first_failure": {
            "seq": 7,
            "reason": "the log ends at seq 6 but its head is seq 9: entries are missing",
        },
    }


def test_FAIR_14_a_log_that_does_not_end_on_its_head_fails():
    full = build_log()
    # Longer than the head: something was appended after the anchor was taken.
    report = failure(full, head=(8, full[7]["hash"]))
    assert report["first_failure"] == {
        "seq": 8,
        "reason": f"the log does not end on its head (seq 8, hash {full[7]['hash']})",
    }
    assert report["entries_checked"] == 9
    # Same length, other last hash: the tail was rewritten.
    report = failure(full, head=(9, "0" * 64))
    assert report["first_failure"] == {
        "seq": 9,
        "reason": f"the log does not end on its head (seq 9, hash {'0' * 64})",
    }


def test_FAIR_14_the_first_failure_wins_over_the_head():
    full = build_log()
    gap = full[:3] + full[4:]
    assert failure(gap, head=(9, full[-1]["hash"]))["first_failure"] == {
        "seq": 5,
        "reason": "seq gap: expected 4, found 5",
    }


def test_FAIR_14_an_empty_log_verifies_against_the_genesis_head_only():
    assert verify_log([], head=(0, GENESIS_HASH)).ok is True
    assert failure([], head=(3, "a" * 64))["first_failure"] == {
        "seq": 1,
        "reason": "the log ends at seq 0 but its head is seq 3: entries are missing",
    }


def test_FAIR_14_an_empty_log_verifies_with_nothing_checked():
    assert verify_log([]).as_dict() == {
        "ok": True,
        "entries_checked": 0,
        "rederived": 0,
        "replayed": 0,
        "not_rederived": {},
        "chain_only": {},
        "first_failure": None,
    }


# --- tampering: seeds and epochs ----------------------------------------------------------------


def test_FAIR_4_a_wrong_revealed_seed_fails_at_epoch_closed():
    entries = copy.deepcopy(build_log())
    entries[6]["result"]["server_seed"] = WRONG_SEED.hex()
    forged = reseal(entries, 6)
    assert failure(forged) == {
        "ok": False,
        "entries_checked": 6,
        "rederived": 0,  # the wrong seed is not used to re-derive epoch 1's rolls
        "replayed": 4,
        "first_failure": {
            "seq": 7,
            "reason": "revealed seed does not match the commitment of epoch 1",
        },
    }


def test_FAIR_4_a_wrong_seed_with_its_own_commitment_still_fails():
    # The commitment that counts is the one published in epoch_opened, not the one repeated
    # in epoch_closed.
    entries = copy.deepcopy(build_log())
    entries[6]["result"] = {"server_seed": WRONG_SEED.hex(), "commitment": commitment(WRONG_SEED)}
    forged = reseal(entries, 6)
    assert failure(forged)["first_failure"] == {
        "seq": 7,
        "reason": "revealed seed does not match the commitment of epoch 1",
    }


def test_FAIR_4_a_revealed_seed_that_is_not_hex_fails():
    entries = copy.deepcopy(build_log())
    entries[6]["result"]["server_seed"] = "not hex"
    forged = reseal(entries, 6)
    assert failure(forged)["first_failure"] == {
        "seq": 7,
        "reason": "revealed server_seed is not hex",
    }


def test_FAIR_3_client_seed_set_after_the_first_roll_fails():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.roll("2d6")  # 2: first roll of epoch 1
    log.set_client_seed("late")  # 3
    log.roll("1d6")  # 4
    assert failure(log.entries) == {
        "ok": False,
        "entries_checked": 2,
        "rederived": 0,
        "replayed": 1,
        "first_failure": {
            "seq": 3,
            "reason": "client seed changed after the epoch's first roll (FAIR-3)",
        },
    }


def test_FAIR_3_client_seed_may_be_set_twice_before_the_first_roll_and_again_in_a_new_epoch():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.set_client_seed("first")  # 2
    log.set_client_seed("second")  # 3: the one the stream uses
    log.roll("2d6")  # 4
    log.rotate()  # 5, 6
    log.set_client_seed("epoch-2")  # 7: epoch 2 has served no roll yet
    log.roll("1d6")  # 8
    report = verify_log(log.entries)
    assert (report.ok, report.entries_checked, report.rederived, report.replayed) == (
        True,
        8,
        1,
        2,
    )


def test_FAIR_3_a_redacted_first_roll_still_freezes_the_client_seed():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.roll("2d6", visibility="blind")  # 2
    log.set_client_seed("late")  # 3
    entries = [log.entries[0], redact(log.entries[1]), log.entries[2]]
    assert failure(entries)["first_failure"] == {
        "seq": 3,
        "reason": "client seed changed after the epoch's first roll (FAIR-3)",
    }


def test_FAIR_2_a_roll_in_an_epoch_never_opened_fails():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.roll("2d6")  # 2
    log.roll("1d6", epoch=2)  # 3: epoch 2 has no epoch_opened entry
    assert failure(log.entries) == {
        "ok": False,
        "entries_checked": 2,
        "rederived": 0,
        "replayed": 1,
        "first_failure": {
            "seq": 3,
            "reason": "epoch 2 is used before its commitment was published",
        },
    }


def test_FAIR_2_a_log_starting_with_a_roll_has_no_commitment():
    log = LogBuilder()
    log.current_epoch = 1
    log.roll("1d6")  # 1
    assert failure(log.entries)["first_failure"] == {
        "seq": 1,
        "reason": "epoch 1 is used before its commitment was published",
    }


def test_FAIR_2_a_roll_moved_to_a_later_epoch_before_its_opening_fails():
    entries = copy.deepcopy(build_log())
    entries[5]["epoch"] = 2  # seq 6, before epoch 2 is opened at seq 8
    forged = reseal(entries, 5)
    assert failure(forged)["first_failure"] == {
        "seq": 6,
        "reason": "epoch 2 is used before its commitment was published",
    }


def test_FAIR_1_epochs_open_in_order():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.current_epoch = 2
    log.open_epoch()  # 2: opens epoch 3, epoch 2 never opened
    assert failure(log.entries)["first_failure"] == {
        "seq": 2,
        "reason": "epoch 3 opened out of order",
    }
    log = LogBuilder()
    log.open_epoch()  # 1
    log.current_epoch = 0
    log.open_epoch()  # 2: epoch 1 opened again
    assert failure(log.entries)["first_failure"] == {
        "seq": 2,
        "reason": "epoch 1 opened out of order",
    }


# --- FAIR-10: no floats --------------------------------------------------------------------------


def test_FAIR_10_seal_refuses_a_float():
    content = {
        k: v for k, v in build_log()[2].items() if k not in ("prev_hash", "content_hash", "hash")
    }
    content["result"] = {**content["result"], "total": 8.5}
    with pytest.raises(EngineError, match=r"floating-point number \(FAIR-10\)"):
        seal(content, GENESIS_HASH)


@pytest.mark.parametrize(
    ("index", "path"),
    [
        (2, ("result", "total")),
        (2, ("result", "terms", 0, "dice", 0)),
        (2, ("draws", 0, "face")),
        (8, ("draws", 0, "sides")),
        (0, ("epoch",)),
        (6, ("seq",)),
    ],
)
def test_FAIR_10_a_float_anywhere_fails(index, path):
    entries = copy.deepcopy(build_log())
    node: Any = entries[index]
    for key in path[:-1]:
        node = node[key]
    # The same number as a float: RFC 8785 writes 3.0 as 3, so even the content hash cannot
    # tell; only the explicit FAIR-10 check does.
    node[path[-1]] = float(node[path[-1]])
    assert content_hash(entries[index]) == entries[index]["content_hash"]
    seq = index + 1
    report = failure(entries)
    # Even a float seq is reported at the position it holds.
    assert report["first_failure"] == {
        "seq": seq,
        "reason": "entry holds a floating-point number (FAIR-10)",
    }
    assert report["entries_checked"] == index


def test_FAIR_10_a_float_in_a_resealed_entry_fails():
    entries = copy.deepcopy(build_log())
    entries[8]["effects"] = [{"note": "bonus", "amount": 0.5}]
    content = {
        k: v for k, v in entries[8].items() if k not in ("prev_hash", "content_hash", "hash")
    }
    digest = content_hash(content)
    entries[8]["content_hash"] = digest
    entries[8]["hash"] = chain_hash(entries[7]["hash"], 9, digest)
    assert failure(entries)["first_failure"] == {
        "seq": 9,
        "reason": "entry holds a floating-point number (FAIR-10)",
    }


@pytest.mark.parametrize("number", [2**53, -(2**53), 10**30])
def test_FAIR_10_an_integer_past_2_53_fails_at_its_seq_without_a_crash(number):
    """RFC 8785 has no canonical form for it (an I-JSON number): the verifier reports the
    entry, as it reports a float, instead of raising."""
    entries = copy.deepcopy(build_log())
    entries[2]["result"]["total"] = number
    report = failure(entries)
    assert report["first_failure"]["seq"] == 3
    assert report["first_failure"]["reason"].startswith("entry has no RFC 8785 canonical form")
    assert report["entries_checked"] == 2


# --- kinds and redaction -------------------------------------------------------------------------


def test_FAIR_14_an_unknown_kind_fails():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.append(kind="teleport", request={"to": "moon"})  # 2
    assert failure(log.entries) == {
        "ok": False,
        "entries_checked": 1,
        "rederived": 0,
        "replayed": 0,
        "first_failure": {"seq": 2, "reason": "unknown entry kind 'teleport'"},
    }


def test_FAIR_14_a_roll_relabelled_as_an_unknown_kind_fails():
    entries = copy.deepcopy(build_log())
    entries[2]["kind"] = "dice2"
    forged = reseal(entries, 2)
    assert failure(forged)["first_failure"] == {"seq": 3, "reason": "unknown entry kind 'dice2'"}


def test_FAIR_13_redacted_entries_verify_as_a_chain_and_are_not_replayed():
    log = LogBuilder()
    log.open_epoch()  # 1
    log.set_client_seed("table-42")  # 2
    log.roll("2d6+3")  # 3
    log.roll("3d6kh2", visibility="gm")  # 4
    log.roll("1d12", visibility="blind")  # 5
    log.roll("4d10-1")  # 6
    log.rotate()  # 7, 8
    log.roll("1d20", visibility="self")  # 9
    full = log.entries
    assert verify_log(full).as_dict()["rederived"] == 4
    view = [redact(e) if e["visibility"] != "public" else e for e in full]
    assert [e.get("redacted", False) for e in view] == [False] * 3 + [True, True] + [False] * 3 + [
        True
    ]
    assert verify_log(view).as_dict() == {
        "ok": True,
        "entries_checked": 9,
        "rederived": 2,  # seq 3 and 6; the redacted 4 and 5 have no draws to re-derive
        "replayed": 2,  # seq 3 and 6
        "not_rederived": {},
        "chain_only": {"redacted: hidden from whoever verifies (FAIR-13)": 3},  # 4, 5, 9
        "first_failure": None,
    }


def test_FAIR_13_a_tampered_redacted_entry_breaks_the_chain():
    entries = build_log()
    view = [redact(e) if e["seq"] == 5 else e for e in entries]
    view[4] = {**view[4], "content_hash": "0" * 64}
    assert failure(view)["first_failure"] == {
        "seq": 5,
        "reason": "hash does not match prev_hash, seq and content_hash",
    }


def test_FAIR_13_a_redacted_entry_with_a_missing_field_is_reported():
    entries = build_log()
    stub = redact(entries[4])
    del stub["created_at"]
    assert failure([*entries[:4], stub, *entries[5:]])["first_failure"] == {
        "seq": 5,
        "reason": "entry lacks created_at",
    }


# --- forgeries that keep every hash valid ----------------------------------------------------


def test_FAIR_4_a_second_commitment_for_an_open_epoch_is_blamed_on_itself():
    # A forger appends another epoch_opened for epoch 1 with a commitment of their own, then
    # "reveals" the matching seed: the first commitment stands, the forgery fails at its seq.
    log = LogBuilder()
    log.open_epoch()
    log.roll("2d6")
    log.append(
        kind="epoch_opened",
        epoch=1,
        result={"campaign_id": CAMPAIGN_ID, "commitment": commitment(WRONG_SEED)},
    )
    log.append(
        kind="epoch_closed",
        epoch=1,
        result={"server_seed": WRONG_SEED.hex(), "commitment": commitment(WRONG_SEED)},
    )
    assert failure(log.entries)["first_failure"] == {
        "seq": 3,
        "reason": "epoch 1 opened out of order",
    }


def test_FAIR_4_no_entry_may_use_an_epoch_after_its_seed_was_revealed():
    log = LogBuilder()
    log.open_epoch()
    log.rotate()
    log.roll("1d6", epoch=1)  # predictable by anyone once the seed is public
    assert failure(log.entries)["first_failure"] == {
        "seq": 4,
        "reason": "entry in epoch 1 after its seed was revealed (FAIR-4)",
    }


def test_FAIR_4_an_epoch_opens_only_after_the_previous_one_closed():
    log = LogBuilder()
    log.open_epoch()
    log.roll("1d6")
    log.open_epoch()
    assert failure(log.entries)["first_failure"] == {
        "seq": 3,
        "reason": "epoch 2 opened before epoch 1 was closed (FAIR-4)",
    }


@pytest.mark.parametrize(
    ("kind", "result", "reason"),
    [
        ("epoch_opened", "not an object", "result must be an object"),
        ("epoch_opened", {"commitment": 7}, "epoch_opened carries no SHA-256 commitment"),
        ("client_seed_set", {"client_seed": "spaces are not allowed"}, "client seed is not"),
        ("epoch_closed", {"server_seed": None}, "revealed seed does not match"),
    ],
)
def test_FAIR_15_malformed_entries_fail_at_their_seq_instead_of_crashing(kind, result, reason):
    log = LogBuilder()
    if kind != "epoch_opened":
        log.open_epoch()
        log.append(kind=kind, result=result)
    else:
        log.append(kind=kind, epoch=1, result=result)  # type: ignore[arg-type]
    report = failure(log.entries)
    assert report["first_failure"]["seq"] == len(log.entries)
    assert reason in report["first_failure"]["reason"]


def test_FAIR_15_a_non_integer_epoch_fails_at_its_seq():
    log = LogBuilder()
    log.open_epoch()
    log.append(kind="dice", epoch="x")  # type: ignore[arg-type]
    assert failure(log.entries)["first_failure"] == {
        "seq": 2,
        "reason": "epoch must be a positive integer, got 'x'",
    }


def test_FAIR_14_an_epoch_opened_for_another_campaign_is_refused():
    log = LogBuilder(campaign_id="another-campaign")
    log.open_epoch()
    assert failure(log.entries, campaign_id=CAMPAIGN_ID)["first_failure"] == {
        "seq": 1,
        "reason": f"epoch_opened belongs to campaign another-campaign, not {CAMPAIGN_ID}",
    }

"""FAIR-16/17 in `verify_log`: hidden entries of a fairness-2 epoch re-derive from their own
key and proof, never from the revealed epoch seed; entries from before keep FAIR-1..15.

The epoch below uses the hidden seed of fairness.md's vectors, so its root is the normative
`hidden_root`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.engine import audit
from app.engine.audit import GENESIS_HASH, misplaced_commitment, redact, seal
from app.engine.canonical import canonical_json
from app.engine.dice import HmacDiceStream, commitment
from app.engine.hidden import KeyTree, open_commitments, value_commitment
from app.engine.registry import Registry
from tests.engine.rules import resolve, verify_log
from tests.toy import coin

CAMPAIGN_ID = "c0ffee00-0000-4000-8000-000000000001"
SEED = bytes(range(32))
HIDDEN_SEED = bytes(range(0x20, 0x40))
ROOT = "b97097a6e446cabd1ff896ca74ce3c36a803c43993b991e31b30ef4f7f0f8045"
TREE = KeyTree.build(HIDDEN_SEED, CAMPAIGN_ID, 1, 1)
NOT_REVEALED = "its epoch's seed is not revealed yet (FAIR-4)"
NO_KEY = "hidden entry given without its entry key (FAIR-17)"


class HiddenLog:
    """A fairness-2 log built as app/services/log.py builds it."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.keys: dict[int, dict[str, Any]] = {}
        self.append(
            "epoch_opened",
            result={
                "campaign_id": CAMPAIGN_ID,
                "commitment": commitment(SEED),
                "hidden_root": TREE.root,
            },
        )

    def append(self, kind: str, **content: Any) -> dict[str, Any]:
        seq = len(self.entries) + 1
        entry = {
            "seq": seq,
            "epoch": 1,
            "kind": kind,
            "created_at": f"2026-11-30T12:00:{seq:02d}.000000Z",
            "actor_id": "u-player",
            "character_id": None,
            "visibility": "public",
            "request": {},
            "draws": [],
            "result": {},
            "effects": [],
            "fairness": 2,
            **content,
        }
        prev = self.entries[-1]["hash"] if self.entries else GENESIS_HASH
        sealed = seal(entry, prev)
        self.entries.append(sealed)
        return sealed

    def roll(self, notation: str, visibility: str = "public", key: bytes | None = None) -> None:
        seq = len(self.entries) + 1
        hidden = visibility != "public"
        stream_key = key or (TREE.key(seq) if hidden else SEED)
        dice = HmacDiceStream(stream_key, CAMPAIGN_ID, 1, "", seq)
        resolved = resolve("dice", {"notation": notation}, dice)
        self.append(
            "dice",
            visibility=visibility,
            request={"notation": notation},
            draws=[dict(draw) for draw in dice.draws],
            result=resolved.result,
            effects=resolved.effects,
        )
        if hidden:
            self.keys[seq] = {"entry_key": TREE.key(seq).hex(), "proof": TREE.proof(seq)}

    def close(self) -> None:
        self.append(
            "epoch_closed", result={"server_seed": SEED.hex(), "commitment": commitment(SEED)}
        )

    def with_keys(self, *seqs: int) -> list[dict[str, Any]]:
        return [{**e, **self.keys[e["seq"]]} if e["seq"] in seqs else e for e in self.entries]


def test_FAIR_16_the_test_epoch_publishes_the_normative_root():
    assert TREE.root == ROOT


def test_FAIR_17_hidden_entries_rederive_from_their_keys_public_ones_from_the_reveal():
    log = HiddenLog()
    log.roll("3d6")  # 2 public
    log.roll("6d6", visibility="gm")  # 3
    log.roll("1d20", visibility="blind")  # 4
    report = verify_log(log.with_keys(3, 4))
    assert (report.ok, report.rederived, report.replayed) == (True, 2, 3)
    assert report.not_rederived == {NOT_REVEALED: 1}  # seq 2 waits for the epoch's reveal
    log.close()
    report = verify_log(log.with_keys(3))
    assert (report.ok, report.rederived, report.replayed) == (True, 2, 3)
    assert report.not_rederived == {NO_KEY: 1}  # seq 4: the reveal does not open it


def test_FAIR_17_a_player_who_sees_only_their_entry_checks_the_rest_by_chain():
    log = HiddenLog()
    log.roll("2d6", visibility="self")  # 2: theirs
    log.roll("2d6", visibility="gm")  # 3: someone else's
    log.close()
    view = [redact(e) if e["seq"] == 3 else e for e in log.with_keys(2)]
    report = verify_log(view)
    assert report.ok and report.rederived == 1 and report.replayed == 1
    assert report.chain_only == {"redacted: hidden from whoever verifies (FAIR-13)": 1}


def test_FAIR_17_a_hidden_roll_drawn_from_the_epoch_seed_fails():
    log = HiddenLog()
    log.roll("6d6", visibility="gm", key=SEED)  # the service cheated: the reveal would open it
    log.keys[2] = {"entry_key": TREE.key(2).hex(), "proof": TREE.proof(2)}
    report = verify_log(log.with_keys(2))
    assert report.first_failure is not None and report.first_failure.seq == 2
    assert report.first_failure.reason == "draws do not match the revealed seed's stream (FAIR-6)"


def test_FAIR_17_a_key_with_the_proof_of_another_seq_fails():
    log = HiddenLog()
    log.roll("2d6", visibility="gm")  # 2
    entries = log.with_keys(2)
    entries[1] = {**entries[1], "proof": TREE.proof(3)}
    report = verify_log(entries)
    assert report.first_failure is not None and "hidden_root" in report.first_failure.reason


def test_FAIR_16_an_epoch_opened_under_fairness_2_must_publish_its_root():
    log = HiddenLog()
    opened = {
        k: v for k, v in log.entries[0].items() if k not in ("prev_hash", "content_hash", "hash")
    }
    opened["result"] = {"campaign_id": CAMPAIGN_ID, "commitment": commitment(SEED)}
    report = verify_log([seal(opened, GENESIS_HASH)])
    assert report.first_failure is not None
    assert report.first_failure.reason == (
        "epoch_opened under fairness 2 carries no hidden_root (FAIR-16)"
    )


def test_FAIR_16_an_unknown_fairness_version_fails():
    log = HiddenLog()
    log.append("dice", request={"notation": "3"}, result={}, fairness=3)
    report = verify_log(log.entries)
    assert report.first_failure is not None
    assert report.first_failure.reason == "fairness must be 1 or 2, got 3"


# --- FAIR-18: committed values -------------------------------------------------------------

SALT = bytes(range(16))


def committed_roll(log: HiddenLog, notation: str = "2d6") -> dict[str, Any]:
    """A public roll whose request value is hashed as a commitment, and its disclosure."""
    seq = len(log.entries) + 1
    dice = HmacDiceStream(SEED, CAMPAIGN_ID, 1, "", seq)
    resolved = resolve("dice", {"notation": notation}, dice)
    digest = value_commitment(SALT, canonical_json(notation))
    log.append(
        "dice",
        request={"notation": {"$commit": digest}},
        draws=[dict(draw) for draw in dice.draws],
        result=resolved.result,
        effects=resolved.effects,
    )
    return {"path": "/request/notation", "salt": SALT.hex(), "value": notation}


def test_FAIR_18_the_value_commitment_vector_opens_in_an_entry():
    value = {"attributes": {"physique": 4}, "note": "secret: est le voïvode déguisé"}
    entry = {"request": {"npc": {"$commit": value_commitment(SALT, canonical_json(value))}}}
    disclosure = {"path": "/request/npc", "salt": SALT.hex(), "value": value}
    assert open_commitments(entry, [disclosure], canonical_json)["request"]["npc"] == value
    assert entry["request"]["npc"] == {  # the entry itself is left as hashed
        "$commit": "15d67fcc608546856520073d8388bde221be5b9e657df88002f8c1c069ca1f2c"
    }


def test_FAIR_18_disclosed_inputs_replay():
    log = HiddenLog()
    disclosure = committed_roll(log)  # 2
    opened = [log.entries[0], {**log.entries[1], "disclosures": [disclosure]}]
    report = verify_log(opened)
    assert (report.ok, report.replayed) == (True, 1)


def test_FAIR_18_a_commitment_hides_only_an_npcs_values():
    # Undisclosed, a commitment that stands for anything but an NPC's value (here the
    # notation) would let a forged entry pass unchecked as "not replayed".
    log = HiddenLog()
    committed_roll(log)  # 2
    report = verify_log(log.entries)
    assert report.first_failure is not None and report.first_failure.seq == 2
    assert report.first_failure.reason == (
        "a commitment stands where no hidden value may, at /request/notation"
    )


def test_FAIR_18_where_a_commitment_may_stand():
    commit = {"$commit": "00" * 32}
    npc = {"id": "n", "name": "Le comte", "kind": "npc", "sheet": commit, "rank": 1}
    allowed = {
        "request": {"target": npc, "combatants": [npc]},
        "result": {"order": [{**npc, "total": commit}]},
        "effects": [{"character_id": "n", "field": "stress", "before": commit, "after": commit}],
    }
    assert misplaced_commitment(allowed) is None
    for entry, path in (
        ({"request": {"target": {**npc, "name": commit}}}, "/request/target/name"),
        ({"request": {"target": {**npc, "kind": "pc"}}}, "/request/target/sheet"),
        ({"result": {"total": commit}}, "/result/total"),
        ({"effects": [{"character_id": commit}]}, "/effects/0/character_id"),
    ):
        assert misplaced_commitment(entry) == path


def test_FAIR_18_a_disclosure_that_does_not_open_its_commitment_fails():
    log = HiddenLog()
    disclosure = committed_roll(log)
    for forged, reason in (
        ({**disclosure, "value": "9d6"}, "does not match its commitment"),
        ({**disclosure, "path": "/request/other"}, "leads nowhere"),
        ({**disclosure, "path": "/result/total"}, "nothing is committed"),
        ({**disclosure, "salt": "zz"}, "a hex salt"),
    ):
        report = verify_log([log.entries[0], {**log.entries[1], "disclosures": [forged]}])
        assert report.first_failure is not None and report.first_failure.seq == 2
        assert reason in report.first_failure.reason


# --- FAIR-20: any entry that draws a die is a roll ------------------------------------------


def test_FAIR_20_an_entry_with_draws_freezes_the_client_seed_whatever_its_kind():
    """A kind that says it is no roll but draws dice still froze the client seed: setting
    it afterwards fails, as after any roll (FAIR-3)."""
    quiet = dataclasses.replace(coin.FLIP, is_roll=False)
    registry = Registry([dataclasses.replace(coin.RULESET, kinds=(quiet,))])
    log = HiddenLog()
    seq = len(log.entries) + 1
    dice = HmacDiceStream(SEED, CAMPAIGN_ID, 1, "", seq)
    character = {"id": "c1", "name": "Ada", "kind": "pc", "sheet": {"luck": 3}}
    request = {"system": "coin-flip", "character": character, "call": "heads"}
    found = registry.for_entry({"kind": "coin.flip", "rules": "coin@1"})
    resolution = found.kind.resolve(found.kind.parse_request(request), dice, 1)
    log.append(
        "coin.flip",
        rules="coin@1",
        request=request,
        draws=[dict(draw) for draw in dice.draws],
        result=resolution.result.dump(),
        effects=[effect.dump() for effect in resolution.effects],
    )
    log.append("client_seed_set", request={"client_seed": "late"}, result={"client_seed": "late"})
    report = audit.verify_log(log.entries, registry=registry)
    assert report.first_failure is not None and report.first_failure.seq == seq + 1
    assert (
        report.first_failure.reason == "client seed changed after the epoch's first roll (FAIR-3)"
    )

"""FAIR-11 hash vectors (from fairness_vectors) and the audit helpers."""

from app.engine.audit import GENESIS_HASH, redact, seal
from app.engine.canonical import canonical_json
from tests.engine import fairness_vectors as v


def test_FAIR_11_entry_1_canonical_form_and_hashes():
    assert canonical_json(v.ENTRY_1) == v.ENTRY_1_CANONICAL.encode()
    sealed = seal(v.ENTRY_1, GENESIS_HASH)
    assert sealed["prev_hash"] == v.GENESIS == "0" * 64
    assert sealed["content_hash"] == v.ENTRY_1_CONTENT_HASH
    assert sealed["hash"] == v.ENTRY_1_HASH


def test_FAIR_11_entry_2_chains_on_entry_1():
    assert canonical_json(v.ENTRY_2) == v.ENTRY_2_CANONICAL.encode()
    first = seal(v.ENTRY_1, GENESIS_HASH)
    second = seal(v.ENTRY_2, first["hash"])
    assert second["content_hash"] == v.ENTRY_2_CONTENT_HASH
    assert second["hash"] == v.ENTRY_2_HASH


def test_FAIR_13_redaction_keeps_only_what_checks_the_chain():
    sealed = seal(v.ENTRY_2, GENESIS_HASH)
    assert redact(sealed) == {
        "seq": 2,
        "epoch": 1,
        "kind": "fabulae.action",
        "visibility": "gm",
        "created_at": "2026-11-29T12:00:01.500000Z",
        "prev_hash": GENESIS_HASH,
        "content_hash": sealed["content_hash"],
        "hash": sealed["hash"],
        "redacted": True,
    }

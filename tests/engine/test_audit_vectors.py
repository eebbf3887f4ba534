"""FAIR-11 hash vectors and the audit helpers."""

from app.engine.audit import GENESIS_HASH, canonical_json, redact, seal

ENTRY_1 = {
    "actor_id": "u-gm",
    "character_id": None,
    "created_at": "2026-11-29T12:00:00.000000Z",
    "draws": [],
    "effects": [],
    "epoch": 1,
    "kind": "epoch_opened",
    "request": {},
    "result": {"commitment": "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"},
    "seq": 1,
    "visibility": "public",
}
ENTRY_2 = {
    "actor_id": "u-player",
    "character_id": "ch-1",
    "created_at": "2026-11-29T12:00:01.500000Z",
    "draws": [
        {"face": 6, "sides": 6},
        {"face": 2, "sides": 6},
        {"face": 6, "sides": 6},
        {"face": 4, "sides": 6},
    ],
    "effects": [],
    "epoch": 1,
    "kind": "fabulae.action",
    "request": {"label": "Crocheter la serrure — «vite»", "pool": 3, "stress_dice": 1},
    "result": {"feats": 1, "outcome": "success", "panic": False, "sixes": 2},
    "seq": 2,
    "visibility": "gm",
}


def test_FAIR_11_entry_1_canonical_form_and_hashes():
    assert canonical_json(ENTRY_1) == (
        b'{"actor_id":"u-gm","character_id":null,"created_at":"2026-11-29T12:00:00.000000Z",'
        b'"draws":[],"effects":[],"epoch":1,"kind":"epoch_opened","request":{},"result":'
        b'{"commitment":"630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"},'
        b'"seq":1,"visibility":"public"}'
    )
    sealed = seal(ENTRY_1, GENESIS_HASH)
    assert sealed["prev_hash"] == "0" * 64
    assert sealed["content_hash"] == (
        "e02656f3712fd863306c05b10b5b5c07181d08fb5aaa3a176c6346ac3b7a114f"
    )
    assert sealed["hash"] == "8da51d424240878e55ff9935c184704fade535f20f7d4d11f0a71c85712784c0"


def test_FAIR_11_entry_2_chains_on_entry_1():
    first = seal(ENTRY_1, GENESIS_HASH)
    second = seal(ENTRY_2, first["hash"])
    assert second["content_hash"] == (
        "a16820a29fde4f23e4ca079eb44a38c602ee15faa77fe1fc3cb99e8aa97808d2"
    )
    assert second["hash"] == "2b1dbbc91e75918b32241912d54942950eeef21ec8c26a813e78b56e8aee4d07"


def test_FAIR_13_redaction_keeps_only_what_checks_the_chain():
    sealed = seal(ENTRY_2, GENESIS_HASH)
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

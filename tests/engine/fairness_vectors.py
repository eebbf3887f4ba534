"""The normative test vectors of docs/rules/fairness.md (FAIR-1, 6, 7, 11, 16..18), as data.

One definition for both verifiers: the Python tests (test_fairness_vectors.py,
test_audit_vectors.py, test_hidden_vectors.py) and the browser verifier's tests
(tests/browser/test_verifier.py, which hands `as_json()` to app/web/static/verify.js).
"""

from __future__ import annotations

from typing import Any

CAMPAIGN = "c0ffee00-0000-4000-8000-000000000001"
EPOCH = 1

# FAIR-1: the epoch seed and its commitment.
SEED = bytes(range(32))
SEED_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"

# FAIR-6: the first HMAC block of client seed `table-42`, nonce 7, and its eight words.
CLIENT_SEED = "table-42"
NONCE = 7
BLOCK_0 = "9ea2d744eb61f5e5b2c306be9ba78b126c1267aba5621155b8b4f1fa0b0a73e7"
WORDS_0 = [
    2661472068,
    3949065701,
    2999125694,
    2611448594,
    1813145515,
    2774667605,
    3098866170,
    185234407,
]

# FAIR-7: dice drawn in order from streams of SEED; each stream is (client seed, nonce,
# [(sides, faces), ...]) and starts fresh.
STREAMS: list[tuple[str, int, list[tuple[int, list[int]]]]] = [
    (
        CLIENT_SEED,
        NONCE,
        [
            (6, [1, 6, 3, 3, 2, 6, 1, 2, 4, 5]),
            (10, [10, 4, 6, 6, 8]),
            (12, [3]),
            (20, [19]),
            (3, [3]),
        ],
    ),
    ("", 1, [(6, [1, 4, 6, 1])]),
    # Four words rejected before the first face; the third die reaches block k = 1.
    (CLIENT_SEED, NONCE, [(2**31 + 1, [1813145516, 185234408, 1427382532])]),
]

# FAIR-11: two entries, their canonical forms and hashes; entry 2 chains on entry 1.
GENESIS = "0" * 64
ENTRY_1: dict[str, Any] = {
    "actor_id": "u-gm",
    "character_id": None,
    "created_at": "2026-11-29T12:00:00.000000Z",
    "draws": [],
    "effects": [],
    "epoch": 1,
    "kind": "epoch_opened",
    "request": {},
    "result": {"commitment": COMMITMENT},
    "seq": 1,
    "visibility": "public",
}
ENTRY_1_CANONICAL = (
    '{"actor_id":"u-gm","character_id":null,"created_at":"2026-11-29T12:00:00.000000Z",'
    '"draws":[],"effects":[],"epoch":1,"kind":"epoch_opened","request":{},"result":'
    '{"commitment":"630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"},'
    '"seq":1,"visibility":"public"}'
)
ENTRY_1_CONTENT_HASH = "e02656f3712fd863306c05b10b5b5c07181d08fb5aaa3a176c6346ac3b7a114f"
ENTRY_1_HASH = "8da51d424240878e55ff9935c184704fade535f20f7d4d11f0a71c85712784c0"
ENTRY_2: dict[str, Any] = {
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
ENTRY_2_CANONICAL = (
    '{"actor_id":"u-player","character_id":"ch-1","created_at":"2026-11-29T12:00:01.500000Z",'
    '"draws":[{"face":6,"sides":6},{"face":2,"sides":6},{"face":6,"sides":6},'
    '{"face":4,"sides":6}],"effects":[],"epoch":1,"kind":"fabulae.action","request":'
    '{"label":"Crocheter la serrure — «vite»","pool":3,"stress_dice":1},"result":'
    '{"feats":1,"outcome":"success","panic":false,"sixes":2},"seq":2,"visibility":"gm"}'
)
ENTRY_2_CONTENT_HASH = "a16820a29fde4f23e4ca079eb44a38c602ee15faa77fe1fc3cb99e8aa97808d2"
ENTRY_2_HASH = "2b1dbbc91e75918b32241912d54942950eeef21ec8c26a813e78b56e8aee4d07"

# FAIR-16..18: the hidden seed of epoch 1 (first_seq 1), the key and proof of seq 9.
HIDDEN_SEED = bytes(range(0x20, 0x40))
HIDDEN_SEED_HEX = "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
HIDDEN_SEED_SHA256 = "72dbb7336c76780023f83da4c355f2eeea85733b13d3477697917790c1229084"
FIRST_SEQ = 1
HIDDEN_SEQ = 9
ROOT = "b97097a6e446cabd1ff896ca74ce3c36a803c43993b991e31b30ef4f7f0f8045"
KEY_9 = "a7f515c78016572b41f19722cbd031f2db53bbfc4e87ca97d1b4872171c847db"
PROOF_9 = [
    "08c97a294e8126ca353c8d9b08f004e611e561c05783743c663b12c3e49c4dfe",
    "ccbc7c1963574e2c38671ab3df9e63507a9fc5e1bfdbe3b90b15fccf4ef03d9e",
    "e5ae6891b1ad0ee91048b3b41732fed65d68a49f422f5f846697b0d2a30a6211",
    "0eacb2ac22c3121bebbbeb1e969db01546a0c36afa4508cd4176d31fdefab42c",
    "30a6e19133d5a09b908475c9e30de071eeae93decc1986451d20f5d563d49686",
    "a4d6a75f8a35b6bf4e711182e957e678148ebbc778ef89b8872efb759894ace7",
    "edd9a76f3638a96a395e5e000ec71c89f7ca9340ea146e735d72cc8104efe460",
    "38421de6fc73d3c8eadfb60b13f3f975310fae6818c2a3065697bad8433ceaa7",
    "29a05754b55722f4b5d19243e37a8d2bd3acb546d2503c393e063e859e04d0af",
    "1f0acbb237bbab182734ebc360607b4d4a7a725e4c75d2afc1ccaad699908d1b",
    "591434cc95a1b38a8596a29ea4ab3f117ac3d179b0b89a8559805cd635275cbe",
    "1bf40817c42108e7f87bf13164e97528cc80fb1096550ba9043de81d2629203c",
]
# FAIR-17: the hidden entry n = 9 draws from its own key, client seed `table-42`.
HIDDEN_DICE: list[tuple[int, list[int]]] = [(6, [6, 5, 3, 6, 2, 1]), (20, [10])]

# FAIR-18: a value commitment, salt = bytes 0x00..0x0f.
SALT = bytes(range(16))
SALT_HEX = "000102030405060708090a0b0c0d0e0f"
COMMITTED_VALUE: dict[str, Any] = {
    "attributes": {"physique": 4},
    "note": "secret: est le voïvode déguisé",
}
VALUE_COMMITMENT = "15d67fcc608546856520073d8388bde221be5b9e657df88002f8c1c069ca1f2c"


def as_json() -> dict[str, Any]:
    """Every vector as plain JSON, for a verifier written in another language."""
    return {
        "campaign": CAMPAIGN,
        "epoch": EPOCH,
        "seed": SEED_HEX,
        "commitment": COMMITMENT,
        "client_seed": CLIENT_SEED,
        "nonce": NONCE,
        "block_0": BLOCK_0,
        "words_0": WORDS_0,
        "streams": [
            {
                "client_seed": client_seed,
                "nonce": nonce,
                "dice": [{"sides": sides, "faces": faces} for sides, faces in dice],
            }
            for client_seed, nonce, dice in STREAMS
        ],
        "genesis": GENESIS,
        "entries": [
            {
                "entry": ENTRY_1,
                "canonical": ENTRY_1_CANONICAL,
                "content_hash": ENTRY_1_CONTENT_HASH,
                "hash": ENTRY_1_HASH,
            },
            {
                "entry": ENTRY_2,
                "canonical": ENTRY_2_CANONICAL,
                "content_hash": ENTRY_2_CONTENT_HASH,
                "hash": ENTRY_2_HASH,
            },
        ],
        "hidden_seed": HIDDEN_SEED_HEX,
        "hidden_seed_sha256": HIDDEN_SEED_SHA256,
        "first_seq": FIRST_SEQ,
        "hidden_seq": HIDDEN_SEQ,
        "root": ROOT,
        "key_9": KEY_9,
        "proof_9": PROOF_9,
        "hidden_dice": [{"sides": sides, "faces": faces} for sides, faces in HIDDEN_DICE],
        "salt": SALT_HEX,
        "committed_value": COMMITTED_VALUE,
        "value_commitment": VALUE_COMMITMENT,
    }

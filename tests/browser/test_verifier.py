"""The browser verifier (app/web/static/verify.js) in a real headless Chromium.

It must reproduce the normative vectors exactly as the Python verifier does (the same
values: tests/engine/fairness_vectors.py), verify the frozen exports and the service's own
exports with the counts `verify_log` gives, and fail a tampered export at the seq and for
the reason `verify_log` gives. Replaying the rules stays nocturne-verify's.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from app.engine.audit import GENESIS_HASH, KEY_FIELDS, content_of, redact, seal, verify_log
from app.engine.canonical import canonical_json
from app.engine.registry import DEFAULT_REGISTRY, STRUCTURAL_KINDS
from app.verify import parse_head
from tests.browser import verifier_harness
from tests.browser.verifier_harness import JavaScriptError, Verifier, ndjson
from tests.conftest import API, DRACULA_SHEET
from tests.engine import fairness_vectors as v

# The harness's fixtures (tests/browser/conftest.py belongs to the page's tests).
static_server = verifier_harness.static_server
chromium = verifier_harness.chromium
verifier = verifier_harness.verifier

FROZEN = Path(__file__).resolve().parents[1] / "fixtures" / "frozen"
FROZEN_NAMES = sorted(path.stem for path in FROZEN.glob("*.ndjson"))


# --- the normative vectors (fairness.md), the same values the Python tests read -------------


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    return v.as_json()


def test_FAIR_1_commitment_vector(verifier: Verifier, vectors: dict[str, Any]) -> None:
    digest = verifier.run("return v.commitment(v.fromHex(args[0].seed));", vectors)
    assert digest == v.COMMITMENT


def test_FAIR_6_first_block_and_its_words(verifier: Verifier, vectors: dict[str, Any]) -> None:
    block, words = verifier.run(
        """const x = args[0];
        const block = await v.streamBlock(
          v.fromHex(x.seed), x.campaign, x.epoch, x.client_seed, x.nonce, 0);
        return [v.toHex(block), v.blockWords(block)];""",
        vectors,
    )
    assert block == v.BLOCK_0
    assert words == v.WORDS_0


@pytest.mark.parametrize("stream", range(len(v.STREAMS)))
def test_FAIR_7_dice_in_order_from_one_stream(
    verifier: Verifier, vectors: dict[str, Any], stream: int
) -> None:
    """Each stream of the vectors: ten d6 then d10s, d12, d20, d3; the empty client seed;
    dice of 2^31 + 1 sides, rejection crossing into block 1."""
    spec = vectors["streams"][stream]
    faces = verifier.run(
        """const [x, s] = args;
        const sides = s.dice.flatMap((d) => d.faces.map(() => d.sides));
        const seed = v.fromHex(x.seed);
        return v.drawFaces(seed, x.campaign, x.epoch, s.client_seed, s.nonce, sides);""",
        vectors,
        spec,
    )
    _, _, dice = v.STREAMS[stream]
    assert faces == [face for _, expected in dice for face in expected]
    assert faces


@pytest.mark.parametrize("index", [0, 1])
def test_FAIR_11_entry_canonical_form_and_hashes(
    verifier: Verifier, vectors: dict[str, Any], index: int
) -> None:
    """Entry 1 from the genesis hash, entry 2 chained on entry 1."""
    canonical, content, chained = verifier.run(
        """const x = args[0];
        const prev = args[1] === 0 ? x.genesis : x.entries[0].hash;
        const item = x.entries[args[1]];
        const content = await v.contentHash(item.entry);
        return [v.canonicalJson(item.entry), content,
                await v.chainHash(prev, item.entry.seq, content)];""",
        vectors,
        index,
    )
    expected = vectors["entries"][index]
    assert canonical == expected["canonical"]
    assert content == expected["content_hash"]
    assert chained == expected["hash"]


def test_FAIR_16_hidden_seed_entry_key_and_root_vectors(
    verifier: Verifier, vectors: dict[str, Any]
) -> None:
    digest, key, root = verifier.run(
        """const x = args[0];
        const seed = v.fromHex(x.hidden_seed);
        return [await v.sha256Hex(seed),
                v.toHex(await v.entryKey(seed, x.campaign, x.epoch, x.hidden_seq)),
                await v.keyTreeRoot(seed, x.campaign, x.epoch, x.first_seq)];""",
        vectors,
    )
    assert (digest, key, root) == (v.HIDDEN_SEED_SHA256, v.KEY_9, v.ROOT)


def test_FAIR_17_proof_vector_leads_to_the_root(
    verifier: Verifier, vectors: dict[str, Any]
) -> None:
    key = verifier.run(
        """const x = args[0];
        const index = x.hidden_seq - x.first_seq;
        return v.toHex(await v.checkKey(x.key_9, x.proof_9, index, x.root));""",
        vectors,
    )
    assert key == v.KEY_9


NOT_THE_ROOT = "FAIR-17: the entry key and proof do not lead to the epoch's hidden_root"


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("other_key", NOT_THE_ROOT),
        ("other_position", NOT_THE_ROOT),
        ("short_proof", "an entry key is 32 bytes and its proof 12 hashes of 32 bytes"),
        ("not_hex", "an entry key and its proof are lowercase hex"),
        ("outside_span", "FAIR-16: the entry is outside its epoch's span of 4096 seqs"),
    ],
)
def test_FAIR_17_a_wrong_key_proof_or_position_is_refused(
    verifier: Verifier, vectors: dict[str, Any], case: str, message: str
) -> None:
    refusal = verifier.run(
        """const [x, c] = args;
        const seed = v.fromHex(x.hidden_seed);
        const other = v.toHex(await v.entryKey(seed, x.campaign, x.epoch, x.hidden_seq + 1));
        const index = x.hidden_seq - x.first_seq;
        const cases = {
          other_key: [other, x.proof_9, index],
          other_position: [x.key_9, x.proof_9, index + 1],
          short_proof: [x.key_9, x.proof_9.slice(0, -1), index],
          not_hex: ["zz", x.proof_9, index],
          outside_span: [x.key_9, x.proof_9, 4096],
        };
        try {
          await v.checkKey(...cases[c], x.root);
          return null;
        } catch (error) {
          return [error.name, error.message];
        }""",
        vectors,
        case,
    )
    assert refusal == ["VerifierError", message]


def test_FAIR_17_hidden_entry_dice_vector(verifier: Verifier, vectors: dict[str, Any]) -> None:
    faces = verifier.run(
        """const x = args[0];
        const sides = x.hidden_dice.flatMap((d) => d.faces.map(() => d.sides));
        return v.drawFaces(v.fromHex(x.key_9), x.campaign, x.epoch, x.client_seed,
                           x.hidden_seq, sides);""",
        vectors,
    )
    assert faces == [face for _, fs in v.HIDDEN_DICE for face in fs]


def test_FAIR_18_value_commitment_vector(verifier: Verifier, vectors: dict[str, Any]) -> None:
    digest = verifier.run(
        "const x = args[0]; return v.valueCommitment(v.fromHex(x.salt), x.committed_value);",
        vectors,
    )
    assert digest == v.VALUE_COMMITMENT


# --- RFC 8785 for what FAIR-10 allows, against the service's canonical_json ----------------

TRICKY_STRINGS = [
    "",
    "a",
    'quote " and backslash \\ and slash /',
    "\x00\x01\x08\t\n\x0b\x0c\r\x1f",
    "\x7f é € \u2028 \u2029 \ue000 \U0001f600 \U0001d11e",
    "Crocheter la serrure — «vite»",
]
TRICKY_KEYS = ["a", "A", "b", "aa", "", "é", "\ue000", "\U0001f600", "\x7f", "1", "10", "2"]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(8 if depth < 4 else 5)
    if pick == 0:
        return rng.choice([None, True, False])
    if pick == 1:
        return rng.choice([0, -1, 1, 7, 2**31 + 1, 2**53 - 1, -(2**53 - 1), 10**15])
    if pick in (2, 3, 4):
        return rng.choice(TRICKY_STRINGS) + rng.choice(["", "x", "\U0001f3b2"])
    if pick == 5:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = rng.sample(TRICKY_KEYS, rng.randrange(len(TRICKY_KEYS) // 2))
    return {key: random_value(rng, depth + 1) for key in keys}


def test_FAIR_11_canonical_json_matches_the_services_byte_for_byte(verifier: Verifier) -> None:
    rng = random.Random(22)
    values = [
        {key: index for index, key in enumerate(TRICKY_KEYS)},  # UTF-16 order, not code points
        TRICKY_STRINGS,
        [[], {}, [{}], {"": []}],
        *(random_value(rng) for _ in range(200)),
    ]
    texts = verifier.run("return args[0].map((value) => v.canonicalJson(value));", values)
    expected = [canonical_json(value).decode() for value in values]
    assert texts == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0.5", "0.5 is not an integer: a log entry holds no floating-point number (FAIR-10)"),
        ("{a: [1e21]}", f"{10**21} is beyond ±(2^53 − 1), outside RFC 8785's integers"),
        ("2 ** 53", "9007199254740992 is beyond ±(2^53 − 1), outside RFC 8785's integers"),
        ('"\\ud800x"', "a string holds a lone surrogate, which RFC 8785 refuses"),
        ('{"\\udc00": 1}', "a string holds a lone surrogate, which RFC 8785 refuses"),
        ("{a: undefined}", "a undefined is not JSON"),
    ],
)
def test_FAIR_10_canonical_json_refuses_what_an_entry_may_not_hold(
    verifier: Verifier, value: str, message: str
) -> None:
    refusal = verifier.run(
        f"""try {{ return ["accepted", v.canonicalJson({value})]; }}
        catch (error) {{ return [error.name, error.message]; }}"""
    )
    assert refusal == ["VerifierError", message]


def test_the_kinds_the_browser_knows_are_the_registrys(verifier: Verifier) -> None:
    """Structural kinds (no draws re-derived) and roll kinds (a redacted roll still freezes
    the client seed, FAIR-3/FAIR-20), as app/engine/registry.py has them."""
    structural, rolls = verifier.run(
        "return [[...v.STRUCTURAL_KINDS].sort(), [...v.ROLL_KINDS].sort()];"
    )
    assert structural == sorted(STRUCTURAL_KINDS)
    assert rolls == sorted(DEFAULT_REGISTRY.roll_kind_names())


# --- whole exports --------------------------------------------------------------------------


def frozen(name: str) -> tuple[list[dict[str, Any]], str]:
    text = (FROZEN / f"{name}.ndjson").read_text(encoding="utf-8")
    head = (FROZEN / f"{name}.head").read_text(encoding="utf-8").strip()
    return [json.loads(line) for line in text.splitlines() if line], head


def python_report(entries: list[dict[str, Any]], head: str | None = None) -> dict[str, Any]:
    report = verify_log(entries, registry=DEFAULT_REGISTRY, head=parse_head(head) if head else None)
    return report.as_dict()


def assert_same_counts(report: dict[str, Any], entries: list[dict[str, Any]], head=None) -> None:
    """The browser's report says what verify_log says, but for the rules replayed."""
    expected = python_report(entries, head)
    assert report["ok"] is expected["ok"] is True, (report["failure"], expected["first_failure"])
    assert report["failure"] is None
    assert report["entries"] == expected["entries_checked"] == len(entries)
    assert report["checked"]["draws"] == expected["rederived"]
    assert report["not_rederived"] == expected["not_rederived"]
    redacted = {k: n for k, n in expected["chain_only"].items() if k.startswith("redacted")}
    assert report["chain_only"] == redacted
    visible = [entry for entry in entries if not entry.get("redacted")]
    assert report["checked"]["content_hashes"] == len(visible)
    assert report["checked"]["chain"] == report["checked"]["seq"] == len(entries)
    assert report["checked"]["commitments"] == sum(e["kind"] == "epoch_opened" for e in visible)
    assert report["checked"]["epochs_closed"] == sum(e["kind"] == "epoch_closed" for e in visible)
    assert report["last_hash"] == entries[-1]["hash"]


@pytest.mark.parametrize("name", FROZEN_NAMES)
def test_FAIR_15_a_frozen_export_verifies_in_the_browser(verifier: Verifier, name: str) -> None:
    """The exports frozen before rules versions (old format: no `rules`, no `fairness`)."""
    entries, head = frozen(name)
    report = verifier.verify(ndjson(entries), head=head)
    assert_same_counts(report, entries, head)
    manifest = json.loads((FROZEN / "manifest.json").read_text(encoding="utf-8"))
    assert report["checked"]["draws"] == manifest["files"][f"{name}.ndjson"]["verify"]["rederived"]


def test_FAIR_15_progress_is_reported_up_to_the_last_entry(verifier: Verifier) -> None:
    entries, _ = frozen("fabulae-tenebris")
    calls = verifier.run(
        """const calls = [];
        await v.verifyExport(args[0], { onProgress: (done, total) => calls.push([done, total]) });
        return calls;""",
        ndjson(entries),
    )
    total = len(entries)
    assert calls[-1] == [total, total]
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})
    assert all(seen == total for _, seen in calls)


# --- the service's own exports: hidden rolls, NPC commitments, redactions, disclosures --------


def call(client, caller, method: str, path: str, body: Any = None, expect: int = 201) -> Any:
    response = client.request(method, f"{API}{path}", json=body, headers=caller.headers)
    assert response.status_code == expect, response.text
    return response.json()


def export(client, campaign, caller) -> tuple[list[dict[str, Any]], str, str]:
    response = client.get(f"{API}/campaigns/{campaign['id']}/log/export", headers=caller.headers)
    assert response.status_code == 200, response.text
    entries = [json.loads(line) for line in response.text.splitlines()]
    return entries, response.text, response.headers["log-head"]


GM_ONLY = {"visibility": "gm"}
SELF_ONLY = {"visibility": "self"}


@pytest.fixture
def played(client, gm, player, other_player, make_campaign, make_character):
    """A JDR Dracula table across two epochs: a client seed, public and hidden rolls (gm,
    self, blind; one labelled), an NPC whose values are committed (FAIR-18), a rotation,
    then the GM disclosing part of the log (FAIR-19)."""
    campaign = make_campaign("jdr-express-dracula", players=(player, other_player))
    base = f"/campaigns/{campaign['id']}"
    mihail = make_character(campaign, player, sheet=DRACULA_SHEET, name="Mihail")
    npc_sheet = {**DRACULA_SHEET, "traits": {"mental": 4, "physique": 3, "social": 5}}
    count = make_character(campaign, gm, sheet=npc_sheet, kind="npc", name="Le comte")
    call(client, player, "PUT", f"{base}/fairness/client-seed", {"client_seed": "table-42"}, 200)
    call(client, gm, "POST", f"{base}/sessions", {"night_passed": False, "characters": []})

    def roll(caller, body):
        return call(client, caller, "POST", f"{base}/rolls", body)

    roll(gm, {"kind": "jdr.action", "character_id": count["id"], "trait": "social"})
    roll(gm, {"kind": "jdr.action", "character_id": count["id"], "trait": "mental"} | GM_ONLY)
    roll(player, {"kind": "jdr.attack", "attacker_id": mihail["id"], "target_id": count["id"]})
    roll(player, {"kind": "dice", "notation": "4d6", "label": "Fouiller «vite»"} | SELF_ONLY)
    roll(player, {"kind": "dice", "notation": "2d10", "visibility": "gm"})
    roll(gm, {"kind": "dice", "notation": "3d20", "visibility": "blind"})
    call(client, gm, "POST", f"{base}/fairness/rotate")
    roll(other_player, {"kind": "dice", "notation": "2d6"})
    secret = roll(gm, {"kind": "dice", "notation": "1d100", "visibility": "gm"})
    call(client, gm, "POST", f"{base}/log/disclosures", {"seqs": [secret["seq"]]})
    roll(gm, {"kind": "jdr.action", "character_id": count["id"], "trait": "physique"})
    return campaign


NOT_REVEALED = "its epoch's seed is not revealed yet (FAIR-4)"


def keyed(entries: list[dict[str, Any]]) -> int:
    """Hidden entries with draws given with their key (FAIR-17)."""
    return sum(1 for entry in entries if entry.get("entry_key") and entry.get("draws"))


def published_keys(entries: list[dict[str, Any]]) -> int:
    """Keys the disclosures publish (FAIR-19)."""
    disclosures = [e for e in entries if e["kind"] == "disclosed" and not e.get("redacted")]
    return sum(1 for e in disclosures for item in e["result"]["entries"] if item.get("entry_key"))


def test_FAIR_18_19_the_gms_export_verifies_every_key_and_disclosure(
    verifier: Verifier, client, gm, played
) -> None:
    entries, text, head = export(client, played, gm)
    report = verifier.verify(text, head=head, campaignId=played["id"])
    assert_same_counts(report, entries, head)
    assert any(entry.get("label") for entry in entries)  # hashed with the content
    assert keyed(entries) >= 4 and published_keys(entries) == 1
    assert report["checked"]["hidden_keys"] == keyed(entries) + published_keys(entries)
    assert report["checked"]["disclosures"] == sum(len(e.get("disclosures", [])) for e in entries)
    assert report["checked"]["disclosures"] > 0
    # Only the public rolls of the epoch still open wait for its seed.
    last_epoch = entries[-1]["epoch"]
    waiting = [e for e in entries if e["epoch"] == last_epoch and e["draws"]]
    waiting = [e for e in waiting if e["visibility"] == "public"]
    assert waiting and report["not_rederived"] == {NOT_REVEALED: len(waiting)}
    assert report["chain_only"] == {}


def test_FAIR_13_17_a_players_export_verifies_what_the_player_may_see(
    verifier: Verifier, client, player, other_player, played
) -> None:
    keys = {}
    for caller in (player, other_player):
        entries, text, head = export(client, played, caller)
        report = verifier.verify(text, head=head)
        assert_same_counts(report, entries, head)
        assert report["chain_only"] and any(e.get("redacted") for e in entries)
        keys[caller.id] = report["checked"]["hidden_keys"]
        assert keys[caller.id] == keyed(entries) + published_keys(entries)
    # The player holds the keys of their own self and gm rolls, besides the disclosed one.
    assert keys[player.id] == keys[other_player.id] + 2


# --- tampered exports fail at the seq, with the check and reason, that verify_log gives ------


def resealed(entries: list[dict[str, Any]], start: int) -> list[dict[str, Any]]:
    """The log rewritten from index `start` on, every hash recomputed: what a forger with
    the database, not the Log-Head the server answered, would produce."""
    out = entries[:start]
    prev = out[-1]["hash"] if out else GENESIS_HASH
    for entry in entries[start:]:
        kept = {key: entry[key] for key in KEY_FIELDS if key in entry}
        out.append({**seal(content_of(entry), prev), **kept})
        prev = out[-1]["hash"]
    return out


def assert_fails_like_verify_log(
    verifier: Verifier, entries: list[dict[str, Any]], seq: int, check: str, head=None
) -> dict[str, Any]:
    """The browser fails where verify_log fails, for its reason, having counted the same."""
    report = verifier.verify(ndjson(entries), head=head)
    expected = python_report(entries, head)
    assert report["ok"] is expected["ok"] is False
    reason = expected["first_failure"]["reason"]
    assert report["failure"] == {"seq": seq, "check": check, "detail": reason}
    assert expected["first_failure"]["seq"] == seq
    assert report["entries"] == expected["entries_checked"]
    assert report["checked"]["draws"] == expected["rederived"]
    assert report["not_rederived"] == expected["not_rederived"]
    return report


def first_with_draws(entries: list[dict[str, Any]], epoch: int = 1) -> int:
    return next(i for i, e in enumerate(entries) if e["epoch"] == epoch and e["draws"])


def test_tampered_a_changed_result_fails_its_content_hash(verifier: Verifier) -> None:
    entries, _ = frozen("jdr-express-dracula")
    index = first_with_draws(entries)
    entries[index]["result"]["tampered"] = True
    assert_fails_like_verify_log(verifier, entries, entries[index]["seq"], "content_hash")


def test_tampered_a_removed_entry_leaves_a_seq_gap(verifier: Verifier) -> None:
    entries, _ = frozen("vampire")
    index = first_with_draws(entries)
    removed = entries.pop(index)
    assert_fails_like_verify_log(verifier, entries, removed["seq"] + 1, "seq")


def test_tampered_swapped_draws_fail_the_stream_even_resealed(verifier: Verifier) -> None:
    entries, _ = frozen("fabulae-tenebris")
    index, i, j = next(
        (n, i, j)
        for n, e in enumerate(entries)
        for i, a in enumerate(e["draws"])
        for j, b in enumerate(e["draws"])
        if i < j and a["sides"] == b["sides"] and a["face"] != b["face"]
    )
    draws = entries[index]["draws"]
    draws[i], draws[j] = draws[j], draws[i]
    forged = resealed(entries, index)
    assert_fails_like_verify_log(verifier, forged, entries[index]["seq"], "draws")


def test_tampered_a_wrong_revealed_seed_fails_its_commitment(verifier: Verifier) -> None:
    entries, _ = frozen("jdr-express-cthulhu")
    index = next(i for i, e in enumerate(entries) if e["kind"] == "epoch_closed")
    entries[index]["result"]["server_seed"] = "ab" * 32
    forged = resealed(entries, index)
    report = assert_fails_like_verify_log(verifier, forged, entries[index]["seq"], "revealed_seed")
    # Without a seed that matches its commitment, epoch 1's draws were not re-derived.
    rolls = sum(1 for e in entries[:index] if e["draws"])
    assert report["checked"]["draws"] == 0 and rolls > 0
    assert report["not_rederived"] == {"its epoch's seed is not revealed yet (FAIR-4)": rolls}


def test_tampered_a_seed_swapped_with_its_commitment_fails_the_first_roll(
    verifier: Verifier,
) -> None:
    """A forger who rewrites the commitment and the reveal together is caught by the dice."""
    entries, _ = frozen("vampire")
    other_seed = bytes([0x42] * 32)
    opened = next(i for i, e in enumerate(entries) if e["kind"] == "epoch_opened")
    closed = next(i for i, e in enumerate(entries) if e["kind"] == "epoch_closed")
    entries[opened]["result"]["commitment"] = hashlib.sha256(other_seed).hexdigest()
    entries[closed]["result"]["server_seed"] = other_seed.hex()
    forged = resealed(entries, opened)
    index = first_with_draws(entries)
    assert_fails_like_verify_log(verifier, forged, entries[index]["seq"], "draws")


def test_tampered_a_cut_tail_fails_against_the_log_head(verifier: Verifier) -> None:
    entries, head = frozen("jdr-express-dracula")
    kept = entries[:-3]
    assert_fails_like_verify_log(verifier, kept, kept[-1]["seq"] + 1, "head", head=head)


def test_tampered_a_resealed_result_passes_the_browser_but_not_the_log_head(
    verifier: Verifier,
) -> None:
    """The browser reads no result (replaying the rules is nocturne-verify's): a rewritten
    result with every hash recomputed is caught here by the Log-Head the server answered."""
    entries, head = frozen("jdr-express-dracula")
    index = first_with_draws(entries)
    entries[index]["result"]["tampered"] = True
    forged = resealed(entries, index)
    assert verifier.verify(ndjson(forged))["ok"] is True
    report = verifier.verify(ndjson(forged), head=head)
    seq, digest = head.split(":")
    assert report["failure"] == {
        "seq": int(seq),
        "check": "head",
        "detail": f"the log does not end on its head (seq {seq}, hash {digest})",
    }
    # nocturne-verify replays the rules: it fails at the rewritten entry itself.
    failure = python_report(forged, head)["first_failure"]
    assert failure["seq"] == entries[index]["seq"]
    assert failure["reason"] == "replaying the request and draws gives another result"


def test_tampered_a_floating_point_number_is_refused(verifier: Verifier) -> None:
    entries, _ = frozen("vampire")
    index = first_with_draws(entries)
    entries[index]["request"]["bonus"] = 1.0  # JSON.parse would read it as 1
    assert_fails_like_verify_log(verifier, entries, entries[index]["seq"], "format")


def test_tampered_an_integer_beyond_2_53_is_refused(verifier: Verifier) -> None:
    """Outside RFC 8785's integers, an entry has no canonical form: refused at its seq."""
    entries, _ = frozen("vampire")
    index = first_with_draws(entries)
    entries[index]["request"]["bonus"] = 2**60
    report = verifier.verify(ndjson(entries))
    assert report["entries"] == index
    assert report["failure"] == {
        "seq": entries[index]["seq"],
        "check": "format",
        "detail": f"{2**60} is beyond ±(2^53 − 1), outside RFC 8785's integers",
    }


def test_tampered_a_hidden_entrys_proof_fails_its_key(
    verifier: Verifier, client, gm, played
) -> None:
    entries, _, _ = export(client, played, gm)
    index = next(i for i, e in enumerate(entries) if e.get("entry_key") and e["draws"])
    entries[index]["proof"][3] = "00" * 32
    assert_fails_like_verify_log(verifier, entries, entries[index]["seq"], "hidden_key")


def test_tampered_a_disclosed_value_fails_its_commitment(
    verifier: Verifier, client, gm, played
) -> None:
    entries, _, _ = export(client, played, gm)
    index = next(i for i, e in enumerate(entries) if e.get("disclosures"))
    entries[index]["disclosures"][0]["salt"] = "00" * 16
    assert_fails_like_verify_log(verifier, entries, entries[index]["seq"], "disclosure")


def content(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    """An entry's hashed content, for the short logs written below."""
    return {
        "seq": seq,
        "epoch": 1,
        "kind": kind,
        "created_at": "2026-12-01T00:00:00.000000Z",
        "actor_id": "u-gm",
        "character_id": None,
        "visibility": "public",
        "request": {},
        "draws": [],
        "result": {},
        "effects": [],
        **fields,
    }


def chained(contents: list[dict[str, Any]], redacted: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    """The contents sealed one after the other, those at the `redacted` seqs as a member who
    may not see them reads them (FAIR-13)."""
    entries, prev = [], GENESIS_HASH
    for item in contents:
        entry = seal(item, prev)
        prev = entry["hash"]
        entries.append(redact(entry) if item["seq"] in redacted else entry)
    return entries


OPENED = content(1, "epoch_opened", result={"campaign_id": v.CAMPAIGN, "commitment": v.COMMITMENT})


def test_FAIR_3_20_a_client_seed_set_after_a_redacted_roll_fails(verifier: Verifier) -> None:
    """A roll's kind tells it is one even when its draws are hidden from whoever verifies."""
    roll = content(2, "jdr.action", visibility="gm", draws=[{"sides": 6, "face": 4}])
    late = content(
        3, "client_seed_set", request={"client_seed": "late"}, result={"client_seed": "late"}
    )
    assert_fails_like_verify_log(
        verifier, chained([OPENED, roll, late], redacted=(2,)), 3, "client_seed"
    )


def test_FAIR_2_a_roll_before_its_epochs_commitment_fails(verifier: Verifier) -> None:
    roll = content(1, "dice", draws=[{"sides": 6, "face": 1}])
    assert_fails_like_verify_log(verifier, chained([roll]), 1, "epoch")


def test_FAIR_4_an_entry_after_its_epochs_reveal_fails(verifier: Verifier) -> None:
    closed = content(2, "epoch_closed", result={"server_seed": v.SEED_HEX})
    after = content(3, "dice", draws=[{"sides": 6, "face": 1}])
    assert_fails_like_verify_log(verifier, chained([OPENED, closed, after]), 3, "epoch")


def test_an_export_cut_mid_line_fails_at_the_next_seq(verifier: Verifier) -> None:
    entries, _ = frozen("vampire")
    text = ndjson(entries[:10]) + ndjson(entries[10:11])[:50]
    report = verifier.verify(text)
    assert report["entries"] == 10
    assert report["failure"]["seq"] == 11 and report["failure"]["check"] == "json"
    assert report["failure"]["detail"].startswith("line 11 is cut off or not JSON (")


def test_an_empty_export_and_another_campaigns_export_fail(verifier: Verifier) -> None:
    assert verifier.verify("\n")["failure"] == {
        "seq": None,
        "check": "format",
        "detail": "the export holds no entry",
    }
    entries, _ = frozen("vampire")
    owner = entries[0]["result"]["campaign_id"]
    other = "c0ffee00-0000-4000-8000-000000000001"
    report = verifier.verify(ndjson(entries), campaignId=other)
    detail = f"epoch_opened belongs to campaign {owner}, not {other}"
    assert report["failure"] == {"seq": 1, "check": "commitment", "detail": detail}
    failure = verify_log(entries, registry=DEFAULT_REGISTRY, campaign_id=other).first_failure
    assert failure is not None and (failure.seq, failure.reason) == (1, detail)


def test_a_bad_head_is_the_callers_error(verifier: Verifier) -> None:
    with pytest.raises(JavaScriptError, match="expected SEQ:HASH"):
        verifier.verify(ndjson(frozen("vampire")[0]), head="12:short")

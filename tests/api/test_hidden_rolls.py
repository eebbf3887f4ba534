"""Hidden rolls on committed per-entry keys (FAIR-16, FAIR-17), every draw a roll (FAIR-20).

A player who may see a hidden entry gets its key and proof at once and re-derives its dice;
nobody else can, even once the epoch's seed is revealed.
"""

import json
import subprocess
import sys

from app.engine.dice import HmacDiceStream
from app.engine.hidden import SPAN, check_key
from tests.conftest import API, assert_problem

MANY_DICE = "12d1000"  # twelve faces out of 1000: a chance match with another stream is nil


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


def roll(client, campaign, caller, notation=MANY_DICE, visibility="public"):
    response = client.post(
        url(campaign, "/rolls"),
        json={"kind": "dice", "notation": notation, "visibility": visibility},
        headers=caller.headers,
    )
    assert response.status_code == 201, response.text
    return response.json()


def fairness(client, campaign, caller):
    return client.get(url(campaign, "/fairness"), headers=caller.headers).json()


def faces(key_hex, campaign, entry, client_seed=""):
    stream = HmacDiceStream(
        bytes.fromhex(key_hex), campaign["id"], entry["epoch"], client_seed, entry["seq"]
    )
    return [stream.roll(draw["sides"]) for draw in entry["draws"]]


def export(client, caller, campaign):
    response = client.get(url(campaign, "/log/export"), headers=caller.headers)
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines()], response.headers["log-head"]


def test_FAIR_17_the_roller_gets_the_key_and_proof_of_a_gm_roll_at_once(
    client, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    entry = roll(client, campaign, player, visibility="gm")
    assert entry["fairness"] == 2
    root = fairness(client, campaign, player)["current"]["hidden_root"]
    first_seq = fairness(client, campaign, player)["current"]["first_seq"]
    key = check_key(entry["entry_key"], entry["proof"], entry["seq"] - first_seq, root)
    assert [d["face"] for d in entry["draws"]] == faces(key.hex(), campaign, entry)


def test_FAIR_17_public_rolls_carry_no_key_and_draw_from_the_epoch_seed(client, gm, make_campaign):
    campaign = make_campaign()
    entry = roll(client, campaign, gm)
    assert entry.get("entry_key") is None and entry.get("proof") is None
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    seed = fairness(client, campaign, gm)["past"][0]["server_seed"]
    assert [d["face"] for d in entry["draws"]] == faces(seed, campaign, entry)


def test_FAIR_17_a_revealed_epoch_seed_does_not_give_a_hidden_rolls_dice(
    client, gm, player, other_player, make_campaign
):
    campaign = make_campaign(players=(player, other_player))
    hidden = roll(client, campaign, player, visibility="self")
    blind = roll(client, campaign, player, visibility="blind")
    assert client.post(url(campaign, "/fairness/rotate"), headers=gm.headers).status_code == 201
    seed = fairness(client, campaign, other_player)["past"][0]["server_seed"]
    # What the other player reads: redacted entries, no key, no proof.
    for seq in (hidden["seq"], blind["seq"]):
        view = client.get(
            url(campaign, f"/log?after_seq={seq - 1}&limit=1"), headers=other_player.headers
        )
        (redacted,) = view.json()["data"]
        assert redacted["redacted"] is True
        assert "entry_key" not in redacted and "draws" not in redacted
    # Even with every draw's number of sides known, the revealed seed gives other dice.
    assert [d["face"] for d in hidden["draws"]] != faces(seed, campaign, hidden)
    assert [d["face"] for d in hidden["draws"]] == faces(hidden["entry_key"], campaign, hidden)
    # The blind roll's roller learns it happened, not its dice nor its key.
    assert blind.get("redacted") is True and "entry_key" not in blind


def test_FAIR_17_no_response_carries_the_hidden_seed(client, gm, player, make_campaign, session):
    from sqlmodel import select

    from app.models import SeedEpoch

    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    hidden_seeds = [e.hidden_seed for e in session.exec(select(SeedEpoch)).all() if e.hidden_seed]
    assert hidden_seeds
    for caller in (gm, player):
        texts = [
            client.get(url(campaign, "/fairness"), headers=caller.headers).text,
            client.get(url(campaign, "/log"), headers=caller.headers).text,
            client.get(url(campaign, "/log/export"), headers=caller.headers).text,
        ]
        for text in texts:
            assert not any(seed in text for seed in hidden_seeds)


def test_FAIR_17_verification_rederives_hidden_rolls_for_the_gm_and_counts_what_it_could_not(
    client, gm, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")  # 2
    roll(client, campaign, gm)  # 3: public, its epoch still open
    report = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert report == {
        "ok": True,
        "entries_checked": 3,
        "rederived": 1,  # the hidden roll, from its key: no reveal needed
        "replayed": 2,
        "not_rederived": {"its epoch's seed is not revealed yet (FAIR-4)": 1},
        "chain_only": {},
        "first_failure": None,
    }


def run_verifier(tmp_path, entries, head):
    path = tmp_path / "export.ndjson"
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    done = subprocess.run(
        [sys.executable, "-m", "app.verify", str(path), "--head", head],
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout


def test_FAIR_17_a_players_export_rederives_what_was_disclosed_to_them(
    client, gm, player, other_player, make_campaign, tmp_path
):
    campaign = make_campaign(players=(player, other_player))
    roll(client, campaign, player, visibility="self")  # 2: the player's own
    roll(client, campaign, other_player, visibility="gm")  # 3: not theirs
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)  # 4, 5
    entries, head = export(client, player, campaign)
    assert "entry_key" in entries[1] and entries[2]["redacted"] is True
    code, output = run_verifier(tmp_path, entries, head)
    assert code == 0, output
    assert output.splitlines() == [
        f"OK: 5 entries checked, 1 re-derived, 1 replayed; last hash {entries[-1]['hash']}",
        "  1 checked by chain only: redacted: hidden from whoever verifies (FAIR-13)",
    ]
    gm_entries, gm_head = export(client, gm, campaign)
    code, output = run_verifier(tmp_path, gm_entries, gm_head)
    assert code == 0 and output.startswith("OK: 5 entries checked, 2 re-derived, 2 replayed")


def test_FAIR_17_a_forged_entry_key_fails_verification(client, player, make_campaign, tmp_path):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")
    entries, head = export(client, player, campaign)
    forged = dict(entries[1], entry_key="00" * 32)
    code, output = run_verifier(tmp_path, [entries[0], forged], head)
    assert code == 1
    assert "FAIR-17: the entry key and proof do not lead to the epoch's hidden_root" in output


def test_FAIR_17_the_key_is_not_hashed_so_dropping_it_leaves_the_chain_whole(
    client, player, make_campaign, tmp_path
):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")
    entries, head = export(client, player, campaign)
    bare = {k: v for k, v in entries[1].items() if k not in ("entry_key", "proof")}
    code, output = run_verifier(tmp_path, [entries[0], bare], head)
    assert code == 0, output
    assert "1 not re-derived: hidden entry given without its entry key (FAIR-17)" in output


def test_FAIR_16_FAIR_3_an_epoch_near_its_span_end_rotates_after_the_request(
    client, gm, player, make_campaign, session
):
    """The next epoch opens before the request that will draw from it is known, so its
    seeds cannot be chosen for that request, and the members can set its client seed."""
    import uuid

    from app.models import User
    from app.services.access import get_campaign_access
    from app.services.log import SPAN_MARGIN, append_entry

    campaign = make_campaign(players=(player,))
    user = session.get(User, uuid.UUID(gm.id))
    access = get_campaign_access(session, uuid.UUID(campaign["id"]), user, lock=True)
    last_before_margin = SPAN - SPAN_MARGIN  # seq 4032: the roll that reaches the margin
    for _ in range(last_before_margin - 2):  # seq 2..4031
        append_entry(
            session,
            access.campaign,
            kind="client_seed_set",
            actor_id=user.id,
            request={"client_seed": ""},
            result={"client_seed": ""},
        )
    session.commit()
    reaching = roll(client, campaign, player, notation="1d6")
    assert (reaching["seq"], reaching["epoch"]) == (last_before_margin, 1)
    view = fairness(client, campaign, player)
    assert view["past"][0]["last_seq"] == last_before_margin + 1
    assert view["current"] == {**view["current"], "epoch": 2, "first_seq": last_before_margin + 2}
    seeded = client.put(
        url(campaign, "/fairness/client-seed"), json={"client_seed": "ours"}, headers=player.headers
    )
    assert seeded.status_code == 200, seeded.text
    assert roll(client, campaign, player, notation="1d6")["epoch"] == 2


def test_FAIR_16_an_epoch_rotates_before_its_span_runs_out(
    client, gm, player, make_campaign, session
):
    """The next entry past [first_seq, first_seq + 4096) could have no committed key."""
    import uuid

    from app.models import User
    from app.services.access import get_campaign_access
    from app.services.log import append_entry

    campaign = make_campaign(players=(player,))
    user = session.get(User, uuid.UUID(gm.id))
    access = get_campaign_access(session, uuid.UUID(campaign["id"]), user, lock=True)
    for _ in range(SPAN - 1):  # seq 2..4096: the last seq of epoch 1's span
        append_entry(
            session,
            access.campaign,
            kind="client_seed_set",
            actor_id=user.id,
            request={"client_seed": ""},
            result={"client_seed": ""},
        )
    session.commit()
    last = roll(client, campaign, player, notation="1d6", visibility="self")
    assert (last["seq"], last["epoch"]) == (SPAN + 3, 2)  # after epoch_closed and epoch_opened
    view = fairness(client, campaign, player)
    assert view["past"][0]["last_seq"] == SPAN + 1 and view["current"]["first_seq"] == SPAN + 2
    key = check_key(last["entry_key"], last["proof"], 1, view["current"]["hidden_root"])
    assert [d["face"] for d in last["draws"]] == faces(key.hex(), campaign, last)
    report = client.get(url(campaign, "/log/verify"), headers=gm.headers).json()
    assert report["ok"] is True and report["entries_checked"] == SPAN + 3


# --- FAIR-19: the GM discloses ---------------------------------------------------------------


def disclose(client, campaign, caller, **body):
    return client.post(url(campaign, "/log/disclosures"), json=body, headers=caller.headers)


def test_FAIR_19_disclosed_entries_are_read_whole_and_replayed_by_every_member(
    client, gm, player, other_player, make_campaign, tmp_path
):
    campaign = make_campaign(players=(player, other_player))
    secret = roll(client, campaign, other_player, visibility="gm")  # 2
    blind = roll(client, campaign, other_player, visibility="blind")  # 3
    roll(client, campaign, other_player, visibility="self")  # 4: stays hidden
    response = disclose(client, campaign, gm, seqs=[2, 3])
    assert response.status_code == 201, response.text
    entry = response.json()
    assert entry["kind"] == "disclosed" and entry["visibility"] == "public"
    assert entry["request"] == {"seqs": [2, 3]}
    assert [item["seq"] for item in entry["result"]["entries"]] == [2, 3]
    assert entry["result"]["entries"][0]["entry_key"] == secret["entry_key"]
    page = client.get(url(campaign, "/log"), headers=player.headers).json()["data"]
    by_seq = {item["seq"]: item for item in page}
    assert by_seq[2]["draws"] == secret["draws"] and by_seq[2]["entry_key"] == secret["entry_key"]
    assert by_seq[3]["result"] and by_seq[3]["entry_key"]  # the blind roll, whole
    assert by_seq[4]["redacted"] is True
    assert blind["redacted"] is True  # the roller of a blind roll saw nothing until now
    entries, head = export(client, player, campaign)
    code, output = run_verifier(tmp_path, entries, head)
    assert code == 0, output
    assert output.startswith("OK: 5 entries checked, 2 re-derived, 2 replayed")


def test_FAIR_19_a_range_discloses_the_hidden_entries_of_a_scene(client, gm, player, make_campaign):
    campaign = make_campaign(players=(player,))
    for visibility in ("public", "gm", "blind", "public"):  # 2..5
        roll(client, campaign, player, visibility=visibility)
    entry = disclose(client, campaign, gm, from_seq=2, to_seq=5).json()
    assert entry["request"] == {"seqs": [3, 4]}  # the public ones need no disclosure


def test_FAIR_19_only_the_gm_discloses_and_bad_requests_change_nothing(
    client, gm, player, make_campaign
):
    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")  # 2
    roll(client, campaign, player)  # 3
    assert_problem(disclose(client, campaign, player, seqs=[2]), 403, "GM")
    assert_problem(disclose(client, campaign, gm, seqs=[]), 422, "at least one")
    assert_problem(disclose(client, campaign, gm, seqs=[2, 99]), 422, "no entry with seq 99")
    assert_problem(disclose(client, campaign, gm, seqs=[3]), 409, "nothing to disclose")
    assert_problem(disclose(client, campaign, gm, from_seq=3), 422, "range")
    assert_problem(disclose(client, campaign, gm, from_seq=1, to_seq=5000), 422, "at most")
    assert_problem(disclose(client, campaign, gm, seqs=[2**40]), 422)
    log = client.get(url(campaign, "/log"), headers=gm.headers).json()["data"]
    assert [item["kind"] for item in log] == ["epoch_opened", "dice", "dice"]
    assert disclose(client, campaign, gm, seqs=[2]).status_code == 201
    assert_problem(disclose(client, campaign, gm, seqs=[2]), 409, "already disclosed")


def test_FAIR_19_a_disclosure_with_a_forged_key_fails_verification(
    client, gm, player, make_campaign, tmp_path
):
    from app.engine.audit import seal

    campaign = make_campaign(players=(player,))
    roll(client, campaign, player, visibility="gm")  # 2
    disclose(client, campaign, gm, seqs=[2])  # 3
    entries, _ = export(client, gm, campaign)
    content = {
        k: v for k, v in entries[2].items() if k not in ("prev_hash", "content_hash", "hash")
    }
    content["result"] = {"entries": [{**content["result"]["entries"][0], "entry_key": "11" * 32}]}
    forged = seal(content, entries[1]["hash"])
    code, output = run_verifier(tmp_path, [*entries[:2], forged], f"3:{forged['hash']}")
    assert code == 1 and "FAIL at seq 3: disclosed entry 2: FAIR-17" in output


# --- FAIR-18: an NPC's sheet is committed ------------------------------------------------


def npc_action(client, campaign, gm, npc):
    body = {
        "kind": "fabulae.action",
        "character_id": npc["id"],
        "attribute": "physique",
        "skill": "combat",
    }
    response = client.post(url(campaign, "/rolls"), json=body, headers=gm.headers)
    assert response.status_code == 201, response.text
    return response.json()


def test_FAIR_18_an_npc_sheet_the_rules_read_is_a_commitment_to_players(
    client, gm, player, make_campaign, make_character, tmp_path
):
    from tests.conftest import FABULAE_SHEET

    campaign = make_campaign("fabulae-tenebris", players=(player,))
    secret = {**FABULAE_SHEET, "attributes": {**FABULAE_SHEET["attributes"], "physique": 5}}
    npc = make_character(campaign, gm, name="Le comte", kind="npc", sheet=secret)
    as_gm = npc_action(client, campaign, gm, npc)  # 2: public, the GM's NPC acting
    assert as_gm["request"]["character"]["sheet"]["attributes"]["physique"] == 5
    # The sheet, and the pool it made (physique 5 + combat), are the GM's.
    assert [d["path"] for d in as_gm["disclosures"]] == [
        "/request/character/sheet",
        "/result/pool",
    ]
    assert as_gm["result"]["pool"]["attribute"] == 5
    as_player = client.get(url(campaign, f"/rolls/{as_gm['seq']}"), headers=player.headers).json()
    assert set(as_player["request"]["character"]["sheet"]) == {"$commit"}
    assert set(as_player["result"]["pool"]) == {"$commit"}
    assert "disclosures" not in as_player
    # The dice on the table and the outcome stay everyone's; the summary says nothing more.
    assert {k: v for k, v in as_player["result"].items() if k != "pool"} == {
        k: v for k, v in as_gm["result"].items() if k != "pool"
    }
    faces = ", ".join(str(face) for face in as_gm["result"]["dice"])
    label = as_gm["outcome"]["label"]
    assert as_player["summary"] == f"Le comte — {faces}: {label}"

    entries, head = export(client, player, campaign)
    code, output = run_verifier(tmp_path, entries, head)
    assert code == 0, output
    assert (
        "1 checked by chain only: not replayed: inputs committed, not disclosed to whoever "
        "verifies (FAIR-18)" in output
    )
    gm_entries, gm_head = export(client, gm, campaign)
    code, output = run_verifier(tmp_path, gm_entries, gm_head)
    assert code == 0 and output.startswith("OK: 2 entries checked, 0 re-derived, 1 replayed")

    # FAIR-19: once disclosed, everyone reads the values and replays the entry.
    assert disclose(client, campaign, gm, seqs=[as_gm["seq"]]).status_code == 201
    opened = client.get(url(campaign, f"/rolls/{as_gm['seq']}"), headers=player.headers).json()
    assert opened["request"] == as_gm["request"] and opened["result"] == as_gm["result"]
    assert opened["disclosures"] == as_gm["disclosures"]
    assert opened["summary"] == as_gm["summary"]
    entries, head = export(client, player, campaign)
    code, output = run_verifier(tmp_path, entries, head)
    assert code == 0 and output.startswith("OK: 3 entries checked, 0 re-derived, 1 replayed")


def test_FAIR_19_a_disclosure_publishing_a_false_npc_value_fails_verification(
    client, gm, player, make_campaign, make_character, tmp_path
):
    from app.engine.audit import seal
    from tests.conftest import FABULAE_SHEET

    campaign = make_campaign("fabulae-tenebris", players=(player,))
    npc = make_character(campaign, gm, name="Le comte", kind="npc", sheet=FABULAE_SHEET)
    npc_action(client, campaign, gm, npc)  # 2
    disclose(client, campaign, gm, seqs=[2])  # 3
    entries, _ = export(client, player, campaign)
    content = {
        k: v for k, v in entries[2].items() if k not in ("prev_hash", "content_hash", "hash")
    }
    (item,) = content["result"]["entries"]
    value, pool = item["disclosures"]
    assert value["path"] == "/request/character/sheet"
    sheet = {**value["value"], "note": "a lie"}
    disclosures = [{**value, "value": sheet}, pool]
    content["result"] = {"entries": [{**item, "disclosures": disclosures}]}
    forged = seal(content, entries[1]["hash"])
    code, output = run_verifier(tmp_path, [*entries[:2], forged], f"3:{forged['hash']}")
    assert code == 1
    assert "FAIL at seq 3: disclosed entry 2: FAIR-18: the value disclosed at" in output

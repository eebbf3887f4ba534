"""Tampering with the log is caught by GET /log/verify and by nocturne-verify (FAIR-14/15).

The stored log is append-only (FAIR-12); these tests lift the trigger inside their own
rolled-back transaction to play the attacker with direct database access.
"""

import json
import secrets
import subprocess
import sys
import uuid

import pytest
from sqlalchemy import delete, text, update

from app.engine.registry import DEFAULT_REGISTRY
from app.models import Campaign, LogEntry, SeedEpoch
from app.services import log as log_service
from app.services.log import verify_campaign
from tests.conftest import API


def url(campaign, tail=""):
    return f"{API}/campaigns/{campaign['id']}{tail}"


@pytest.fixture
def campaign_with_rolls(client, gm, make_campaign):
    """seq 1 epoch_opened, 2..5 dice rolls, 6 epoch_closed, 7 epoch_opened, 8 a roll."""
    campaign = make_campaign()
    for notation in ("1d20", "2d6+1", "3d6kh2", "4d10"):
        response = client.post(
            url(campaign, "/rolls"), json={"kind": "dice", "notation": notation}, headers=gm.headers
        )
        assert response.status_code == 201
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    client.post(
        url(campaign, "/rolls"), json={"kind": "dice", "notation": "1d6"}, headers=gm.headers
    )
    return campaign


def lift_append_only_trigger(session):
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("ALTER TABLE log_entry DISABLE TRIGGER log_entry_append_only"))
    else:
        session.execute(text("DROP TRIGGER log_entry_no_update"))
        session.execute(text("DROP TRIGGER log_entry_no_delete"))


def commit_tampering(session):
    """Into the test's outer transaction, as another writer's change: no request undoes it."""
    session.commit()
    session.expire_all()


def verify_api(client, gm, campaign):
    return client.get(url(campaign, "/log/verify"), headers=gm.headers).json()


def verify_offline(tmp_path, lines, *args):
    export = tmp_path / "export.ndjson"
    export.write_text("".join(lines))
    done = subprocess.run(
        [sys.executable, "-m", "app.verify", str(export), *args], capture_output=True, text=True
    )
    return done.returncode, done.stdout.strip()


def export_lines(client, gm, campaign):
    response = client.get(url(campaign, "/log/export"), headers=gm.headers)
    return response.text.splitlines(keepends=True), response.headers["log-head"]


def where(campaign, seq):
    return (LogEntry.campaign_id == uuid.UUID(campaign["id"])) & (LogEntry.seq == seq)


def test_untouched_log_verifies_both_ways(client, gm, campaign_with_rolls, tmp_path):
    report = verify_api(client, gm, campaign_with_rolls)
    assert report == {
        "ok": True,
        "entries_checked": 8,
        "rederived": 4,
        "replayed": 5,
        "not_rederived": {
            "its epoch's seed is not revealed yet (FAIR-4)": 1
        },  # seq 8: its epoch is open
        "chain_only": {},
        "first_failure": None,
    }
    lines, head = export_lines(client, gm, campaign_with_rolls)
    code, output = verify_offline(tmp_path, lines, "--head", head)
    assert code == 0 and output.startswith("OK: 8 entries checked, 4 re-derived, 5 replayed")


def test_FAIR_14_rolls_appended_during_a_verification_are_left_for_the_next_one(
    session, client, gm, campaign_with_rolls
):
    """verify_campaign checks the log up to the head it read with the campaign row."""
    campaign = session.get(Campaign, uuid.UUID(campaign_with_rolls["id"]))
    as_read = Campaign.model_validate(campaign.model_dump())  # the head at seq 8
    roll = {"kind": "dice", "notation": "1d6"}
    assert (
        client.post(url(campaign_with_rolls, "/rolls"), json=roll, headers=gm.headers).json()["seq"]
        == 9
    )
    report = verify_campaign(session, as_read, DEFAULT_REGISTRY)
    assert (report.ok, report.entries_checked, report.first_failure) == (True, 8, None)
    assert verify_api(client, gm, campaign_with_rolls)["entries_checked"] == 9


def test_FAIR_12_the_database_refuses_update_and_delete(session, client, gm, campaign_with_rolls):
    with pytest.raises(Exception, match="append-only"), session.begin_nested():
        session.execute(update(LogEntry).where(where(campaign_with_rolls, 2)).values(kind="x"))
    with pytest.raises(Exception, match="append-only"), session.begin_nested():
        session.execute(delete(LogEntry).where(where(campaign_with_rolls, 2)))


def test_FAIR_12_the_log_cannot_be_truncated(session, client, gm, campaign_with_rolls):
    """PostgreSQL refuses TRUNCATE by a statement trigger; SQLite has no TRUNCATE at all."""
    postgres = session.get_bind().dialect.name == "postgresql"
    refused = pytest.raises(Exception, match="append-only" if postgres else "syntax")
    with refused, session.begin_nested():
        session.execute(text("TRUNCATE log_entry"))
    assert verify_api(client, gm, campaign_with_rolls)["entries_checked"] == 8


def test_FAIR_14_a_changed_field_is_caught(session, client, gm, campaign_with_rolls, tmp_path):
    lines, _head = export_lines(client, gm, campaign_with_rolls)
    lift_append_only_trigger(session)
    session.execute(
        update(LogEntry).where(where(campaign_with_rolls, 3)).values(result={"total": 12})
    )
    commit_tampering(session)
    failure = verify_api(client, gm, campaign_with_rolls)["first_failure"]
    assert failure["seq"] == 3 and "content_hash" in failure["reason"]

    entry = json.loads(lines[2])
    entry["result"]["total"] += 1
    lines[2] = json.dumps(entry) + "\n"
    code, output = verify_offline(tmp_path, lines)
    assert code == 1 and output.startswith("FAIL at seq 3: content_hash")


def test_FAIR_14_a_deleted_entry_is_caught(session, client, gm, campaign_with_rolls, tmp_path):
    lines, _head = export_lines(client, gm, campaign_with_rolls)
    lift_append_only_trigger(session)
    session.execute(delete(LogEntry).where(where(campaign_with_rolls, 4)))
    commit_tampering(session)
    failure = verify_api(client, gm, campaign_with_rolls)["first_failure"]
    assert failure == {"seq": 5, "reason": "seq gap: expected 4, found 5"}

    code, output = verify_offline(tmp_path, lines[:3] + lines[4:])
    assert code == 1 and output.startswith("FAIL at seq 5: seq gap: expected 4, found 5")


def test_FAIR_14_two_swapped_entries_are_caught(session, client, gm, campaign_with_rolls, tmp_path):
    lines, _head = export_lines(client, gm, campaign_with_rolls)
    lift_append_only_trigger(session)
    second, third = (
        session.get(LogEntry, (uuid.UUID(campaign_with_rolls["id"]), s)) for s in (2, 3)
    )
    payloads = [(e.request, e.draws, e.result) for e in (second, third)]
    for entry, (request, draws, result) in zip((second, third), reversed(payloads), strict=True):
        session.execute(
            update(LogEntry)
            .where(where(campaign_with_rolls, entry.seq))
            .values(request=request, draws=draws, result=result)
        )
    commit_tampering(session)
    failure = verify_api(client, gm, campaign_with_rolls)["first_failure"]
    assert failure["seq"] == 2 and "content_hash" in failure["reason"]

    swapped = [lines[0], lines[2], lines[1], *lines[3:]]
    code, output = verify_offline(tmp_path, swapped)
    assert code == 1 and output.startswith("FAIL at seq 3: seq gap: expected 2, found 3")


def test_FAIR_14_a_truncated_tail_is_caught(session, client, gm, campaign_with_rolls, tmp_path):
    lines, head = export_lines(client, gm, campaign_with_rolls)
    # Cut after a whole entry: only the published head reveals it.
    code, output = verify_offline(tmp_path, lines[:6], "--head", head)
    assert code == 1
    assert output.startswith("FAIL at seq 7: the log ends at seq 6 but its head is seq 8")
    # Cut inside an entry.
    code, output = verify_offline(tmp_path, [*lines[:6], lines[6][:40]])
    assert code == 1 and output.startswith("FAIL at seq 7: line 7 is cut off")
    # Rows deleted from the end of the stored log: the campaign's head still says seq 8.
    lift_append_only_trigger(session)
    session.execute(
        delete(LogEntry).where(
            (LogEntry.campaign_id == uuid.UUID(campaign_with_rolls["id"])) & (LogEntry.seq >= 7)
        )
    )
    commit_tampering(session)
    failure = verify_api(client, gm, campaign_with_rolls)["first_failure"]
    assert failure["seq"] == 7 and "head is seq 8" in failure["reason"]


def test_FAIR_14_a_wrong_revealed_seed_is_caught(session, client, gm, make_campaign, tmp_path):
    campaign = make_campaign()
    client.post(
        url(campaign, "/rolls"), json={"kind": "dice", "notation": "2d6"}, headers=gm.headers
    )
    # The server swaps its secret seed before revealing it.
    session.execute(
        update(SeedEpoch)
        .where(SeedEpoch.campaign_id == uuid.UUID(campaign["id"]), SeedEpoch.number == 1)
        .values(server_seed=secrets.token_bytes(32).hex())
    )
    commit_tampering(session)
    client.post(url(campaign, "/fairness/rotate"), headers=gm.headers)
    failure = verify_api(client, gm, campaign)["first_failure"]
    assert failure == {"seq": 3, "reason": "revealed seed does not match the commitment of epoch 1"}

    lines, head = export_lines(client, gm, campaign)
    code, output = verify_offline(tmp_path, lines, "--head", head)
    assert code == 1
    assert output.startswith("FAIL at seq 3: revealed seed does not match the commitment")


def test_FAIR_14_a_forged_roll_with_valid_hashes_is_caught_by_replay(
    client, gm, campaign_with_rolls, tmp_path
):
    # A forger rewrites a result and re-seals the chain from there: only replay sees it.
    from app.engine.audit import seal

    lines, _ = export_lines(client, gm, campaign_with_rolls)
    entries = [json.loads(line) for line in lines]
    entries[4]["result"]["total"] = 99
    prev = entries[3]["hash"]
    for index in range(4, len(entries)):
        content = {
            k: v
            for k, v in entries[index].items()
            if k not in ("prev_hash", "content_hash", "hash")
        }
        entries[index] = seal(content, prev)
        prev = entries[index]["hash"]
    code, output = verify_offline(tmp_path, [json.dumps(e) + "\n" for e in entries])
    assert code == 1 and output.startswith("FAIL at seq 5: replaying the request and draws")


@pytest.mark.parametrize("page", [1, 3, 8])
def test_FAIR_14_a_log_read_in_pages_ahead_verifies_and_exports_whole(
    page, monkeypatch, session, client, gm, campaign_with_rolls, tmp_path
):
    """The log is read a page ahead of the verifier (issue 23): with pages of 1, 3 and 8
    entries, across and on their edges, every entry is checked once, in order."""
    monkeypatch.setattr(log_service, "_PAGE", page)
    report = verify_api(client, gm, campaign_with_rolls)
    assert (report["ok"], report["entries_checked"], report["replayed"]) == (True, 8, 5)
    lines, head = export_lines(client, gm, campaign_with_rolls)
    assert [json.loads(line)["seq"] for line in lines] == list(range(1, 9))
    code, output = verify_offline(tmp_path, lines, "--head", head)
    assert code == 0 and output.startswith("OK: 8 entries checked")


def test_FAIR_14_a_failure_in_an_early_page_stops_the_reading_ahead(
    monkeypatch, session, client, gm, campaign_with_rolls
):
    """The verifier stops at seq 3 while the next page is being read: it waits for that read,
    and the database serves the next request."""
    monkeypatch.setattr(log_service, "_PAGE", 2)
    lift_append_only_trigger(session)
    session.execute(
        update(LogEntry).where(where(campaign_with_rolls, 3)).values(result={"total": 12})
    )
    commit_tampering(session)
    report = verify_api(client, gm, campaign_with_rolls)
    assert (report["ok"], report["entries_checked"]) == (False, 2)
    assert report["first_failure"]["seq"] == 3
    assert verify_api(client, gm, campaign_with_rolls) == report
    assert client.get(url(campaign_with_rolls), headers=gm.headers).status_code == 200


def test_FAIR_14_entries_changed_out_of_shape_are_served_as_stored_and_marked_unfit(
    session, client, gm, campaign_with_rolls
):
    """An entry altered in the database so that it no longer fits its kind's schema does not
    fail the pages that show it: it is served as stored, marked `unfit`, and the statistics
    leave it out, saying why; verification names where the log breaks."""
    lift_append_only_trigger(session)
    session.execute(
        update(LogEntry).where(where(campaign_with_rolls, 3)).values(result={"total": 12})
    )
    session.execute(update(LogEntry).where(where(campaign_with_rolls, 4)).values(kind="forged"))
    session.execute(update(LogEntry).where(where(campaign_with_rolls, 5)).values(draws="six"))
    commit_tampering(session)

    log = client.get(url(campaign_with_rolls, "/log"), headers=gm.headers)
    assert log.status_code == 200
    by_seq = {entry["seq"]: entry for entry in log.json()["data"]}
    assert [seq for seq, entry in by_seq.items() if entry.get("unfit")] == [3, 4, 5]
    assert by_seq[3]["result"] == {"total": 12} and by_seq[4]["kind"] == "forged"
    assert by_seq[5]["draws"] == "six"
    assert "unfit" not in by_seq[2] and by_seq[2]["result"]["total"] >= 1  # typed as before

    roll = client.get(url(campaign_with_rolls, "/rolls/3"), headers=gm.headers)
    assert roll.status_code == 200 and roll.json()["unfit"] is True
    assert client.get(url(campaign_with_rolls, "/rolls"), headers=gm.headers).status_code == 200

    stats = client.get(url(campaign_with_rolls, "/stats"), headers=gm.headers)
    assert stats.status_code == 200
    left_out = stats.json()["not_compared"]
    assert [(item["reason"], item["rule"], item["rolls"]) for item in left_out] == [
        ("unfit", "FAIR-14", 2)
    ]
    assert sum(die["dice"] for die in stats.json()["dice"]) == 1 + 1  # seqs 2 and 8 alone

    failure = verify_api(client, gm, campaign_with_rolls)["first_failure"]
    assert failure["seq"] == 3


def test_FAIR_14_entries_changed_into_other_json_types_are_served_as_stored(
    session, client, gm, player, make_campaign
):
    """A result turned into a number, a request into a list, a visibility no rule knows,
    a die of 2^32 sides: every page answers, the members' included, and the statistics
    leave those entries out without sizing a count per face."""
    campaign = make_campaign(players=(player,))
    for notation in ("1d6", "2d6", "3d6", "1d20"):
        response = client.post(
            url(campaign, "/rolls"), json={"kind": "dice", "notation": notation}, headers=gm.headers
        )
        assert response.status_code == 201
    lift_append_only_trigger(session)
    session.execute(update(LogEntry).where(where(campaign, 1)).values(request=[1]))
    session.execute(update(LogEntry).where(where(campaign, 2)).values(result=12))
    session.execute(update(LogEntry).where(where(campaign, 3)).values(visibility="hidden"))
    huge = [{"sides": 2**32, "face": 1}]
    session.execute(update(LogEntry).where(where(campaign, 4)).values(draws=huge))
    commit_tampering(session)
    for caller in (gm, player):
        listed = client.get(url(campaign, "/log"), headers=caller.headers)
        assert listed.status_code == 200, listed.text
        by_seq = {entry["seq"]: entry for entry in listed.json()["data"]}
        assert all(by_seq[seq].get("unfit") for seq in (1, 2, 3)), by_seq
        assert by_seq[2]["result"] == 12 and by_seq[1]["request"] == [1]
        assert "unfit" not in by_seq[5]
        for seq in (2, 3, 4):
            one = client.get(url(campaign, f"/rolls/{seq}"), headers=caller.headers)
            assert one.status_code == 200, one.text
    assert by_seq[3]["redacted"] is True  # the player's view: redacted, as stored
    stats = client.get(url(campaign, "/stats"), headers=gm.headers)
    assert stats.status_code == 200, stats.text
    assert [(item["reason"], item["rolls"]) for item in stats.json()["not_compared"]] == [
        ("unfit", 2)  # seqs 2 and 4; seq 3 is read by the GM as it stands
    ]
    assert [die["sides"] for die in stats.json()["dice"]] == [6, 20]

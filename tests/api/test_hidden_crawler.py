"""A crawler for FAIR-18 and FAIR-21: nothing a player can read tells them what is hidden.

One scripted scene per ruleset. The GM's NPC carries a unique marker in the free-text
fields its sheet accepts (each field with its own suffix, so a leak names the field it came
from). The NPC rolls publicly and hidden, a player's character attacks it or opposes it,
the NPC defends, rolls initiative in an encounter and acts there, the players make `self`
and `blind` rolls, the GM edits the NPC's sheet and opens a new scene.

Then every GET a player may call is crawled, as each player and in both languages, before
and after the GM rotates the seed; every answer a player got while playing is checked too.
The marker must appear in no body and no header. Finally the GM's export verifies
completely offline (`python -m app.verify --head`), and so does each player's.

The dice are the service's real ones (no `forced_dice`): the scene re-derives after a
rotation and rolls hidden, which forced faces would not survive. So the scene only plays
moves whose refusal does not depend on the dice, and the checks hold whatever they show.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.conftest import API, DRACULA_SHEET, FABULAE_SHEET, VAMPIRE_SHEET

DRACULA = "jdr-express-dracula"
FAB = "fabulae-tenebris"
VAMPIRE = "vampire"
LANGUAGES = ("en", "fr")
PAGE = 3  # small pages: the crawl walks the cursor across many of them


# --- finding the marker ------------------------------------------------------------------------


def marker_paths(
    value: Any, marker: str, path: str = "$", entry: str = ""
) -> Iterator[tuple[str, str, str]]:
    """Every place whose key or string value holds the marker: the log entry it sits in
    (kind and seq, when it sits in one), its JSON path from there, and the text."""
    if isinstance(value, dict):
        if not entry and {"seq", "kind", "visibility"} <= value.keys():
            entry, path = f"{value['kind']} entry seq {value['seq']}", "$"
        for key, child in value.items():
            child_path = f"{path}.{key}"
            if marker in str(key).lower():
                yield entry, child_path + " (a key)", str(key)
            yield from marker_paths(child, marker, child_path, entry)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from marker_paths(child, marker, f"{path}[{index}]", entry)
    elif isinstance(value, str) and marker in value.lower():
        yield entry, path, value


def parsed(text: str) -> Any:
    """A JSON body, or an NDJSON export as a list of its lines, or the raw text."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return text


@dataclass
class Table:
    """A campaign, its people and its characters, and what the crawl found."""

    client: Any
    campaign: dict[str, Any]
    gm: Any
    players: tuple[Any, ...]
    pcs: dict[str, dict[str, Any]]  # player id -> their PC
    npc: dict[str, Any]
    marker: str
    encounters: list[str] = field(default_factory=list)
    # (where: entry and JSON path, text) -> the requests whose answers showed it
    leaks: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    stage: str = "play"

    @property
    def id(self) -> str:
        return str(self.campaign["id"])

    def url(self, tail: str = "") -> str:
        return f"{API}/campaigns/{self.id}{tail}"

    def who(self, caller: Any) -> str:
        return "GM" if caller is self.gm else f"player {caller.name!r}"

    def inspect(self, caller: Any, what: str, response: Any) -> None:
        """Note any 5xx, and, for a player, every place the marker shows in the answer."""
        if response.status_code >= 500:
            self.errors.append(f"{self.stage}: {what} as {self.who(caller)}: {response.text}")
        if caller is self.gm:
            return
        seen = f"{self.stage}, as {self.who(caller)}: {what}"
        for name, value in response.headers.items():
            if self.marker in value.lower():
                self.leak(f"header {name}", value, seen)
        found = list(marker_paths(parsed(response.text), self.marker))
        for entry, path, text in found:
            self.leak(f"{entry or 'the body'}: {path}", text, seen)
        if not found and self.marker in response.text.lower():
            self.leak("the raw body", response.text, seen)  # however it is written

    def leak(self, where: str, text: str, seen: str) -> None:
        self.leaks.setdefault((where, text[:120]), set()).add(seen)

    def get(self, caller: Any, path: str, language: str | None = None) -> Any:
        headers = dict(caller.headers)
        if language is not None:
            headers["Accept-Language"] = language
        response = self.client.get(path, headers=headers)
        self.inspect(caller, f"GET {path}" + (f" [{language}]" if language else ""), response)
        return response

    def post(self, caller: Any, path: str, body: Any = None, ok=(201,)) -> dict[str, Any]:
        response = self.client.post(path, json=body, headers=caller.headers)
        self.inspect(caller, f"POST {path} {json.dumps(body)[:160]}", response)
        assert response.status_code in ok, (path, body, response.text)
        return response.json() if response.content else {}

    def roll(self, caller: Any, body: dict[str, Any], ok=(201,)) -> dict[str, Any]:
        return self.post(caller, self.url("/rolls"), body, ok)

    # --- encounters --------------------------------------------------------------------

    def encounter(self, name: str, *fighters: tuple[dict[str, Any], str]) -> dict[str, Any]:
        body = {
            "name": name,
            "combatants": [{"character_id": c["id"], "side": side} for c, side in fighters],
        }
        encounter = self.post(self.gm, self.url("/encounters"), body)
        self.encounters.append(str(encounter["id"]))
        return self.post(self.gm, f"{API}/encounters/{encounter['id']}/initiative", ok=(200,))

    def turn_of(self, encounter: dict[str, Any], character: dict[str, Any]) -> None:
        """The GM passes turns until it is this character's."""
        for _ in range(12):
            view = self.client.get(f"{API}/encounters/{encounter['id']}", headers=self.gm.headers)
            assert view.status_code == 200, view.text
            if view.json()["current"]["character_id"] == character["id"]:
                return
            self.post(self.gm, f"{API}/encounters/{encounter['id']}/next", ok=(200,))
        raise AssertionError(f"{character['name']}'s turn never came")

    def act(
        self, caller: Any, encounter: dict[str, Any], actor: dict[str, Any], ok=(201,), **body: Any
    ) -> dict[str, Any]:
        payload = {"actor_id": actor["id"], **body}
        return self.post(caller, f"{API}/encounters/{encounter['id']}/actions", payload, ok)

    def end(self, encounter: dict[str, Any]) -> None:
        self.post(self.gm, f"{API}/encounters/{encounter['id']}/end", ok=(200,))

    # --- the crawl -----------------------------------------------------------------------

    def crawl(self) -> None:
        """Every GET a player may call, as each player, in both languages."""
        for caller in self.players:
            self.crawl_as(caller)

    def crawl_as(self, caller: Any) -> None:
        system = self.campaign["system"]
        self.get(caller, f"{API}/users/me")
        self.get(caller, f"{API}/systems")
        self.get(caller, f"{API}/systems/{system}")
        self.get(caller, f"{API}/systems/{system}/rules")
        self.get(caller, f"{API}/campaigns")
        self.get(caller, self.url())
        self.get(caller, self.url("/members"))
        self.get(caller, self.url("/fairness"))
        self.get(caller, self.url("/log/verify"))
        export = self.get(caller, self.url("/log/export"))
        assert export.status_code == 200, export.text

        characters = self.get(caller, self.url("/characters?limit=200"))
        assert characters.status_code == 200, characters.text
        ids = {c["id"] for c in characters.json()["data"]}
        assert self.npc["id"] in ids
        for kind in ("npc", "pc"):
            self.get(caller, self.url(f"/characters?kind={kind}"))
        for player in self.players:
            self.get(caller, self.url(f"/characters?owner_id={player.id}"))
        for character_id in sorted(ids):
            self.get(caller, f"{API}/characters/{character_id}")

        encounters = self.get(caller, self.url("/encounters"))
        assert encounters.status_code == 200, encounters.text
        assert {e["id"] for e in encounters.json()["data"]} == set(self.encounters)
        for encounter_id in self.encounters:
            self.get(caller, f"{API}/encounters/{encounter_id}")

        kinds: set[str] = set()
        seqs: set[int] = set()
        for language in LANGUAGES:
            for listing in ("/log", "/rolls"):
                for entry in self.pages(caller, listing, language):
                    kinds.add(entry["kind"])
                    seqs.add(entry["seq"])
                for character_id in (self.npc["id"], *(pc["id"] for pc in self.pcs.values())):
                    query = f"character_id={character_id}&limit=200"
                    self.get(caller, self.url(f"{listing}?{query}"), language)
            for kind in sorted(kinds):
                self.get(caller, self.url(f"/log?kind={kind}&limit=200"), language)
            for seq in range(1, max(seqs) + 2):
                self.get(caller, self.url(f"/rolls/{seq}"), language)
            self.check_npc_numbers(caller, language)

    def check_npc_numbers(self, caller: Any, language: str) -> None:
        """FAIR-18: what the rules read of the NPC and show in a result (a Defense, a pool's
        attribute) is a commitment to the player, and the summary holds no number beyond
        the faces on the table."""
        as_gm = {e["seq"]: e for e in self.pages(self.gm, "/log", language)}
        for entry in self.pages(caller, "/log", language):
            gm_view = as_gm[entry["seq"]]
            if entry.get("redacted") or "disclosures" in entry or not gm_view.get("disclosures"):
                continue
            where = f"{self.stage}, as {self.who(caller)}: entry {entry['seq']} ({entry['kind']})"
            for disclosure in gm_view["disclosures"]:
                node: Any = entry
                for token in disclosure["path"].strip("/").split("/"):
                    node = node[int(token)] if isinstance(node, list) else node[token]
                if set(node) != {"$commit"}:
                    self.leak(f"{where}: {disclosure['path']}", json.dumps(node), where)
            faces = {str(draw["face"]) for draw in entry["draws"]}
            numbers = set(re.findall(r"\d+", entry["summary"]))
            if not numbers <= faces:
                self.leak(f"{where}: summary", entry["summary"], where)

    def pages(self, caller: Any, listing: str, language: str) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = []
        after = 0
        for _ in range(500):
            response = self.get(
                caller, self.url(f"{listing}?limit={PAGE}&after_seq={after}"), language
            )
            assert response.status_code == 200, response.text
            page = response.json()
            entries.extend(page["data"])
            if page["next_after_seq"] is None:
                return entries
            after = page["next_after_seq"]
        raise AssertionError("the log's pages never ended")

    def apply_waiting(self) -> list[int]:
        """The GM applies, in log order, every hidden roll waiting for them (FAIR-21), and
        then what those set off (a panic), until nothing waits."""
        applied: list[int] = []
        for _ in range(10):
            log = self.pages(self.gm, "/log", "en")
            waiting = [e["seq"] for e in log if e.get("effects_held")]
            if not waiting:
                return applied
            for seq in waiting:
                self.post(self.gm, self.url(f"/log/{seq}/apply"))
            applied.extend(waiting)
        raise AssertionError("hidden rolls kept waiting for the GM")

    def rotate(self) -> None:
        self.post(self.gm, self.url("/fairness/rotate"))

    # --- offline verification --------------------------------------------------------------

    def verify_offline(self, caller: Any, tmp_path: Any) -> str:
        response = self.client.get(self.url("/log/export"), headers=caller.headers)
        assert response.status_code == 200, response.text
        head = response.headers["log-head"]
        export = tmp_path / f"{self.id}-{caller.id}.ndjson"
        export.write_bytes(response.content)
        done = subprocess.run(
            [sys.executable, "-m", "app.verify", str(export), "--head", head],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (self.who(caller), done.stdout + done.stderr)
        return done.stdout

    def report(self) -> None:
        """No 5xx, and the marker nowhere a player reads."""
        assert not self.errors, "server errors:\n" + "\n".join(self.errors)
        lines = []
        for (where, text), seen in sorted(self.leaks.items()):
            lines.append(f"- {where} = {text!r}")
            lines.append(f"    read by {len(seen)} answers, through: {', '.join(endpoints(seen))}")
        assert not self.leaks, (
            f"[{self.campaign['system']}] the NPC's marker {self.marker!r} reached players:\n"
            + "\n".join(lines)
        )


def endpoints(seen: set[str]) -> list[str]:
    """The routes behind these answers: ids, queries and languages left out."""
    routes = set()
    for item in seen:
        stage, rest = item.split(", as ", 1)
        route = rest.split(": ", 1)[1].split("?")[0].split(" ")[:2]
        route[1] = re.sub(r"[0-9a-f-]{36}", "{id}", route[1].removeprefix(API))
        route[1] = re.sub(r"/rolls/\d+", "/rolls/{seq}", route[1])
        routes.add(f"{' '.join(route)} ({'played' if stage == 'play' else 'crawled'})")
    return sorted(routes)


def fresh_marker() -> str:
    """Lowercase letters and digits: valid even as a Vampire ability id."""
    return f"zqxhush{uuid.uuid4().hex[:10]}"


def make_table(
    client, gm, players, make_campaign, make_character, system, pc_sheet, npc_sheet, marker, **kw
) -> Table:
    """The campaign, a PC for each player, a session begun, then the GM's NPC."""
    campaign = make_campaign(system, players=players, **kw)
    pcs = {
        caller.id: make_character(campaign, caller, sheet=pc_sheet, name=name)
        for caller, name in zip(players, ("Mihail", "Ilona"), strict=True)
    }
    table = Table(client, campaign, gm, players, pcs, {}, marker)
    table.post(gm, table.url("/sessions"), {"night_passed": False, "characters": []})
    table.npc = make_character(campaign, gm, sheet=npc_sheet, kind="npc", name="Le comte")
    return table


def dice(table: Table, caller: Any, visibility: str) -> dict[str, Any]:
    return table.roll(caller, {"kind": "dice", "notation": "3d20", "visibility": visibility})


def finish(table: Table, tmp_path: Any) -> None:
    """Crawl, rotate, crawl again, verify every export offline, then report."""
    # The control: the GM reads the NPC's values, opened, so the marker is there to find.
    gm_log = table.client.get(table.url("/log?limit=200"), headers=table.gm.headers)
    assert any(marker_paths(gm_log.json(), table.marker)), "the GM should read the marker"
    table.stage = "before rotation"
    table.crawl()
    table.rotate()
    table.stage = "after rotation"
    table.crawl()
    # The GM's export holds every disclosure: offline, every entry is checked, each draw
    # re-derived and each rule replayed, exactly as the service's own verification says.
    report = table.client.get(table.url("/log/verify"), headers=table.gm.headers).json()
    assert report["ok"] is True and report["first_failure"] is None, report
    assert report["chain_only"] == {} and report["not_rederived"] == {}, report
    (gm_summary,) = table.verify_offline(table.gm, tmp_path).splitlines()
    assert gm_summary.startswith(
        f"OK: {report['entries_checked']} entries checked, {report['rederived']} re-derived, "
        f"{report['replayed']} replayed; last hash "
    ), gm_summary
    # A player's export verifies too: the same chain, up to the same head.
    for caller in table.players:
        summary = table.verify_offline(caller, tmp_path).splitlines()[0]
        assert summary.startswith("OK: ") and summary.endswith(gm_summary[-64:]), summary
        assert summary != gm_summary  # hidden entries and NPC values: not replayed
    # FAIR-19: the GM reveals the whole session; then each player's export re-derives and
    # replays exactly what the GM's does.
    head = table.client.get(table.url("/log/verify"), headers=table.gm.headers).json()
    table.post(
        table.gm, table.url("/log/disclosures"), {"from_seq": 1, "to_seq": head["entries_checked"]}
    )
    (gm_summary,) = table.verify_offline(table.gm, tmp_path).splitlines()
    for caller in table.players:
        (summary,) = table.verify_offline(caller, tmp_path).splitlines()
        assert summary == gm_summary, summary
    table.stage = "after disclosure"
    table.report()


# --- JDR Express (Dracula) ---------------------------------------------------------------------


def test_FAIR_18_21_jdr_dracula_npc_secrets_reach_no_player(
    client, gm, player, other_player, make_campaign, make_character, tmp_path
):
    marker = fresh_marker()
    npc_sheet = {
        "traits": {"mental": 4, "physique": 3, "social": 5},
        "talents": [{"name": f"{marker}_talent", "bonus": 2}],
        "defense_bonus": 1,
        "wounds": [{"severity": "light", "note": f"{marker}_wound"}],
        "tags": ["vampire", "undead"],
        "faith": "atheist",
        "sacred_object": f"{marker}_relic",
    }
    table = make_table(
        client,
        gm,
        (player, other_player),
        make_campaign,
        make_character,
        DRACULA,
        DRACULA_SHEET,
        npc_sheet,
        marker,
    )
    npc = table.npc
    mihail, ilona = table.pcs[player.id], table.pcs[other_player.id]

    # The NPC rolls: in public, then hidden from the players.
    table.roll(gm, {"kind": "jdr.action", "character_id": npc["id"], "trait": "social"})
    table.roll(
        gm,
        {"kind": "jdr.action", "character_id": npc["id"], "trait": "mental", "visibility": "gm"},
    )
    # A player's character attacks it: the NPC is the defending side.
    table.roll(
        player,
        {
            "kind": "jdr.attack",
            "attacker_id": mihail["id"],
            "target_id": npc["id"],
        },
    )
    # Holy water on it (JDR-35): it is a vampire.
    table.roll(
        other_player,
        {"kind": "jdr.holy_water", "attacker_id": ilona["id"], "target_id": npc["id"]},
    )
    # The NPC attacks a PC, in public.
    table.roll(
        gm,
        {
            "kind": "jdr.attack",
            "attacker_id": npc["id"],
            "target_id": ilona["id"],
            "weapon": {"name": "griffes", "bonus": 1},
        },
    )
    # An attack on it only its attacker and the GM see: its wounds change in secret.
    table.roll(
        player,
        {
            "kind": "jdr.attack",
            "attacker_id": mihail["id"],
            "target_id": npc["id"],
            "visibility": "self",
        },
    )
    table.apply_waiting()
    # The NPC attacks a PC in secret; the GM then applies what the roll held back (FAIR-21).
    hidden = table.roll(
        gm,
        {
            "kind": "jdr.attack",
            "attacker_id": npc["id"],
            "target_id": mihail["id"],
            "weapon": {"name": "griffes"},
            "visibility": "gm",
        },
    )
    # The players' sheets wait for the GM while a hidden roll that read them is not applied.
    assert table.apply_waiting() == [hidden["seq"]]
    # The players' hidden rolls: their own actions and plain dice.
    table.roll(
        player,
        {
            "kind": "jdr.action",
            "character_id": mihail["id"],
            "trait": "mental",
            "visibility": "self",
        },
    )
    table.roll(
        other_player,
        {
            "kind": "jdr.action",
            "character_id": ilona["id"],
            "trait": "social",
            "visibility": "blind",
        },
    )
    dice(table, player, "self")
    dice(table, other_player, "blind")
    table.apply_waiting()

    # An encounter: initiative with the NPC, the NPC acts, a PC strikes back.
    encounter = table.encounter("Col de Borgo", (npc, "foes"), (mihail, "pcs"), (ilona, "pcs"))
    table.act(
        gm,
        encounter,
        npc,
        kind="jdr.attack",
        override=True,
        attacker_id=npc["id"],
        target_id=mihail["id"],
        weapon={"name": "griffes"},
    )
    table.turn_of(encounter, mihail)
    table.act(
        player,
        encounter,
        mihail,
        kind="jdr.attack",
        attacker_id=mihail["id"],
        target_id=npc["id"],
    )
    table.end(encounter)

    # The GM edits the NPC's sheet (a GM-only audit entry), then opens a new scene.
    response = client.patch(
        f"{API}/characters/{npc['id']}",
        json={"sheet": {"talents": [{"name": f"{marker}_edited", "bonus": 1}]}},
        headers=gm.headers,
    )
    assert response.status_code == 200, response.text
    table.post(gm, table.url("/scenes"), {"night_passed": True, "characters": []})
    table.roll(gm, {"kind": "jdr.action", "character_id": npc["id"], "trait": "physique"})

    finish(table, tmp_path)


# --- Fabulae Tenebris --------------------------------------------------------------------------

FAB_PC: dict[str, Any] = {**FABULAE_SHEET, "talents": ["beast_friend"]}


def test_FAIR_18_21_fabulae_npc_secrets_reach_no_player(
    client, gm, player, other_player, make_campaign, make_character, tmp_path
):
    marker = fresh_marker()
    npc_sheet = {
        "attributes": {"physique": 5, "habilete": 4, "intellect": 3, "empathie": 2},
        "skills": {"combat": 3, "resistance": 3, "observation": 2, "athletisme": 1},
        "talents": ["cool_head"],
        "weapons": [{"id": "knife"}],
        "inventory": [{"name": f"{marker}_item"}],
        "sequelae": [
            {"kind": "mental", "code": "white_hair", "note": f"{marker}_sequela"},
        ],
        # A power's effect the GM set: one die to every roll and a note; its source is a
        # power id (FAB-101), not free text, since rolls name it beside the die it adds.
        "active_effects": [{"source": "sense", "all_rolls": 1, "note": f"{marker}_note"}],
    }
    table = make_table(
        client,
        gm,
        (player, other_player),
        make_campaign,
        make_character,
        FAB,
        FAB_PC,
        npc_sheet,
        marker,
        options={"powers_allowed": True},
    )
    npc = table.npc
    mihail, ilona = table.pcs[player.id], table.pcs[other_player.id]

    def side(character, attribute="physique", skill="combat") -> dict[str, Any]:
        return {"character_id": character["id"], "attribute": attribute, "skill": skill}

    # The NPC rolls: in public, then hidden from the players.
    table.roll(gm, {"kind": "fabulae.action", **side(npc, "intellect", "observation")})
    table.roll(gm, {"kind": "fabulae.action", **side(npc), "visibility": "gm"})
    # A player opposes it in public (the NPC is the passive side); the GM answers for it
    # (FAB-36); the player pushes the roll.
    waiting = table.roll(
        player, {"kind": "fabulae.opposed", "active": side(mihail), "passive": side(npc)}
    )
    answer = {"kind": "fabulae.oppose", "follows": waiting["seq"], "character_id": npc["id"]}
    opposed = table.roll(gm, {**answer, "talents": []})
    table.roll(player, {"kind": "fabulae.push", "follows": opposed["seq"]}, ok=(201, 409))
    # The other player opposes it in a roll only they and the GM see; the GM answers.
    waiting = table.roll(
        other_player,
        {
            "kind": "fabulae.opposed",
            "active": side(ilona),
            "passive": side(npc),
            "visibility": "self",
        },
    )
    table.roll(gm, {"kind": "fabulae.oppose", "follows": waiting["seq"], "character_id": npc["id"]})
    # An attack on it only its attacker and the GM see; it waits for the GM, who parries
    # (FAB-62), in an entry as hidden.
    waiting = table.roll(
        player,
        {
            "kind": "fabulae.attack",
            "attacker_id": mihail["id"],
            "target_id": npc["id"],
            "mode": "melee",
            "weapon": "bare_hands",
            "visibility": "self",
        },
    )
    defense = {"follows": waiting["seq"], "character_id": npc["id"], "defense": "parry"}
    table.roll(gm, {"kind": "fabulae.defend", **defense})
    table.apply_waiting()
    # The NPC attacks a PC in secret; the GM then applies what the roll held back (FAIR-21).
    hidden = table.roll(
        gm,
        {
            "kind": "fabulae.attack",
            "attacker_id": npc["id"],
            "target_id": mihail["id"],
            "mode": "melee",
            "weapon": "knife",
            "defense": "none",  # a secret attack: the GM says how the PC defends (FAB-62)
            "visibility": "gm",
        },
    )
    # The players' sheets wait for the GM while a hidden roll that read them is not applied.
    assert table.apply_waiting() == [hidden["seq"]]
    # The players' hidden rolls.
    table.roll(
        player,
        {
            "kind": "fabulae.action",
            **side(mihail, "intellect", "observation"),
            "visibility": "blind",
        },
    )
    table.roll(
        other_player,
        {"kind": "fabulae.action", **side(ilona, "intellect", "observation"), "visibility": "self"},
    )
    dice(table, player, "self")
    dice(table, other_player, "blind")
    table.apply_waiting()

    # An encounter: initiative with the NPC, the NPC attacks and Ilona's player dodges, a PC
    # strikes back and the GM parries for the NPC (FAB-62).
    encounter = table.encounter("L'usine", (mihail, "pcs"), (npc, "foes"), (ilona, "pcs"))
    struck = table.act(
        gm,
        encounter,
        npc,
        kind="fabulae.attack",
        override=True,
        attacker_id=npc["id"],
        target_id=ilona["id"],
        mode="melee",
        weapon="knife",
    )
    dodge = {"follows": struck["entry"]["seq"], "character_id": ilona["id"], "defense": "dodge"}
    dodged = table.act(other_player, encounter, ilona, kind="fabulae.defend", **dodge)
    # FAB-34: the turn waits for the states the knife left; Ilona's player accepts them.
    for waiting in dodged["encounter"]["pending_states"]:
        for _ in range(waiting["count"]):
            accept = {"kind": "fabulae.state_choice", "follows": waiting["seq"]}
            table.roll(other_player, accept)
    table.turn_of(encounter, mihail)
    # A panic or a broken state may keep Mihail from acting: a refusal, then, not an attack.
    back = table.act(
        player,
        encounter,
        mihail,
        ok=(201, 409),
        kind="fabulae.attack",
        attacker_id=mihail["id"],
        target_id=npc["id"],
        mode="melee",
        weapon="bare_hands",
    )
    if "entry" in back:
        parry = {"follows": back["entry"]["seq"], "character_id": npc["id"], "defense": "parry"}
        table.act(gm, encounter, npc, ok=(201, 409), kind="fabulae.defend", **parry)
    table.end(encounter)

    # The GM edits the NPC's sheet (a GM-only audit entry), then opens a new scene: the
    # power's effect on the NPC ends with the old one (FAB-102).
    response = client.patch(
        f"{API}/characters/{npc['id']}",
        json={"sheet": {"inventory": [{"name": f"{marker}_edited"}]}},
        headers=gm.headers,
    )
    assert response.status_code == 200, response.text
    table.post(gm, table.url("/scenes"), {"night_passed": False, "characters": []})

    finish(table, tmp_path)


# --- Vampire -----------------------------------------------------------------------------------


def test_FAIR_18_21_vampire_npc_secrets_reach_no_player(
    client, gm, player, other_player, make_campaign, make_character, tmp_path
):
    """Vampire has no attack or opposed roll: the NPC rolls, is restored Willpower, rolls
    initiative and acts in an encounter; the players roll beside it."""
    marker = fresh_marker()
    npc_sheet = {
        "attributes": {**VAMPIRE_SHEET["attributes"], "dexterite": 4, "astuce": 5},
        # An ability id is the sheet's one free text.
        "abilities": {"subterfuge": 4, "melee": 3, f"{marker}_ability": 5},
        "willpower": {"max": 6, "current": 3},
    }
    table = make_table(
        client,
        gm,
        (player, other_player),
        make_campaign,
        make_character,
        VAMPIRE,
        VAMPIRE_SHEET,
        npc_sheet,
        marker,
    )
    npc = table.npc
    mihail, ilona = table.pcs[player.id], table.pcs[other_player.id]

    def action(character, attribute="astuce", ability="subterfuge", **extra) -> dict[str, Any]:
        return {
            "kind": "vampire.action",
            "character_id": character["id"],
            "attribute": attribute,
            "ability": ability,
            **extra,
        }

    # The NPC rolls: in public, spending Willpower, then hidden from the players.
    table.roll(gm, action(npc))
    table.roll(gm, action(npc, "force", "melee", willpower=True))
    table.roll(gm, action(npc, "perception", None, visibility="gm"))
    # The GM restores its Willpower (VAM-3).
    table.roll(gm, {"kind": "vampire.willpower_restore", "character_id": npc["id"], "amount": 1})
    # The players' hidden rolls.
    table.roll(player, action(mihail, visibility="self"))
    table.roll(other_player, action(ilona, "perception", None, visibility="blind"))
    dice(table, player, "self")
    dice(table, other_player, "blind")
    table.apply_waiting()

    # An encounter: initiative with the NPC, the NPC acts, a PC acts on their turn.
    encounter = table.encounter("L'Elysium", (npc, "foes"), (mihail, "pcs"), (ilona, "pcs"))
    table.act(gm, encounter, npc, override=True, **action(npc, "force", "melee", tense=True))
    table.turn_of(encounter, mihail)
    table.act(player, encounter, mihail, **action(mihail, "dexterite", "athletisme"))
    table.end(encounter)

    # The GM edits the NPC's sheet (a GM-only audit entry), then opens a new scene.
    response = client.patch(
        f"{API}/characters/{npc['id']}",
        json={"sheet": {"abilities": {f"{marker}_edited": 2}}},
        headers=gm.headers,
    )
    assert response.status_code == 200, response.text
    table.post(gm, table.url("/scenes"), {"night_passed": False, "characters": []})

    finish(table, tmp_path)

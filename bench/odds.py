"""Odds latency (issue 21), run by bench/run.py on its worker processes.

`POST /campaigns/{id}/odds` for each seed roll kind at its largest allowed pool, every
request a distinct one (another difficulty, modifier or option), so each is computed, not
answered from a cache; each kind's measured requests follow one warm-up request of another
pool, not counted, which pays what a worker does once (building the route's validators on
its first call, importing what the kind's odds import). Generic dice of 100 dice, a
Vampire action of 20 dice, a JDR Express action with Advantage, a Fabulae test of the
largest pool a sheet and its helpers allow, and a Fabulae burst of three shots with every
die an attack's body allows.
Reported: p50 and p99 of each kind's answers, against the 10 ms target, each timed from
connecting to the answer's last byte (the client parses it after, as wrk does not at all).
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.load import build_request, exchange, settle_heap

HOST = "127.0.0.1"
TARGET_P99_MS = 10.0
VAMPIRE_SHEET: dict[str, Any] = {
    "attributes": {
        "force": 5,
        "dexterite": 5,
        "vigueur": 5,
        "charisme": 5,
        "manipulation": 5,
        "apparence": 5,
        "perception": 5,
        "intelligence": 5,
        "astuce": 5,
    },
    "abilities": {"athletisme": 5, "subterfuge": 5},
    "willpower": {"max": 10, "current": 10},
}
JDR_SHEET: dict[str, Any] = {
    "traits": {"mental": 3, "physique": 2, "social": 1},
    "talents": [{"name": "Théologie", "bonus": 2}],
    "faith": "believer",
    "sacred_object": "croix orthodoxe",
}
# A PC's creation budget caps its attributes at 5 and its skills at 3 (FAB-1..6): an NPC,
# whose sheet the GM writes, holds the largest pool.
FABULAE_SHEET: dict[str, Any] = {
    "attributes": {"physique": 5, "habilete": 5, "intellect": 5, "empathie": 5},
    "skills": {"combat": 3, "tir": 3, "observation": 3, "soin": 3, "resistance": 3},
    "talents": ["cool_head"],
}

SHOOTER_SHEET: dict[str, Any] = {
    **FABULAE_SHEET,
    "weapons": [{"id": "repeating_rifle", "ammo": 8}],
}
PLATED_SHEET: dict[str, Any] = {**FABULAE_SHEET, "armor": {"id": "factory_plate"}}


@dataclass
class KindLatency:
    kind: str
    pool: str
    latencies_ms: list[float]
    refused: int

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.latencies_ms)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def _exchange(
    port: int, method: str, path: str, body: object, key: str | None = None
) -> tuple[int, bytes, float]:
    """(status, body, seconds from connecting to the answer's last byte): an answer's
    latency, as wrk measures it; the client's parsing of it comes after (json.loads of
    100d100's 200 kB answer alone takes about 2 ms)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = build_request(method, path, body=body, headers=headers)
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        status, raw = await exchange(reader, writer, request)
        elapsed = time.perf_counter() - started
    finally:
        writer.close()
    return status, raw, elapsed


async def _call(
    port: int, method: str, path: str, body: object, key: str | None = None
) -> tuple[int, Any]:
    status, raw, _ = await _exchange(port, method, path, body, key)
    return status, json.loads(raw) if raw else None


async def _made(port: int, path: str, body: object, key: str | None = None) -> dict[str, Any]:
    status, answer = await _call(port, "POST", path, body, key)
    assert status == 201 and isinstance(answer, dict), (status, answer)
    return answer


async def _campaign(port: int, key: str, system: str, sheet: dict[str, Any]) -> tuple[str, str]:
    campaign = await _made(
        port, "/api/v1/campaigns", {"name": f"odds {system}", "system": system}, key
    )
    character = await _made(
        port,
        f"/api/v1/campaigns/{campaign['id']}/characters",
        {"name": "Largest pool", "kind": "npc", "sheet": sheet},
        key,
    )
    return campaign["id"], character["id"]


def _bodies(kind: str, character: str) -> tuple[str, list[dict[str, Any]]]:
    """Distinct bodies of the kind's largest pool: (what the pool is, the bodies)."""
    if kind == "dice":
        notations = [
            f"100d{sides}+{bonus}" if bonus else f"100d{sides}"
            for sides in (2, 4, 6, 8, 10, 12, 20, 100)
            for bonus in range(12)
        ]
        return "100 dice (d2..d100)", [{"kind": "dice", "notation": n} for n in notations]
    if kind == "vampire.action":
        bodies = [
            {
                "kind": "vampire.action",
                "character_id": character,
                "attribute": "force",
                "ability": "athletisme",
                "modifier": 10,
                "difficulty": difficulty,
                "explosive": explosive,
                "willpower": willpower,
                "tense": tense,
            }
            for difficulty in range(2, 11)
            for explosive in (False, True)
            for willpower in (False, True)
            for tense in (False, True)
        ]
        return "20 dice (Force 5 + Athlétisme 5 + 10)", bodies
    if kind == "jdr.action":
        bodies = [
            {
                "kind": "jdr.action",
                "character_id": character,
                "trait": trait,
                "modifier": modifier,
                "advantage": True,
            }
            for trait in ("mental", "physique", "social")
            for modifier in range(-5, 6)
        ]
        return "3D6 keep 2 (Advantage)", bodies
    pairs = (  # FAB-4: each skill with an attribute it is rolled with
        ("physique", "combat"),
        ("habilete", "tir"),
        ("intellect", "observation"),
        ("empathie", "soin"),
        ("physique", "resistance"),
    )
    bodies = [
        {
            "kind": "fabulae.action",
            "character_id": character,
            "attribute": attribute,
            "skill": skill,
            "helpers": helpers,
            "modifiers": [{"source": "bench", "dice": dice}],
        }
        for attribute, skill in pairs
        for dice in range(7)
        for helpers in (3, 2, 1)
    ]
    return "attribute 5 + skill 3 + 1..3 helpers + 6", bodies


def _burst_bodies(shooter: str, target: str) -> tuple[str, list[dict[str, Any]]]:
    """FAB-65: a burst of 3 from a repeating rifle, aimed, with up to every die the body
    allows (ten modifiers of +6) at a target in factory plate behind each cover: distinct
    by the last two modifiers and the cover, 126 of them (a p99 of fewer is their
    largest)."""
    bodies = [
        {
            "kind": "fabulae.attack",
            "attacker_id": shooter,
            "target_id": target,
            "mode": "ranged",
            "weapon": "repeating_rifle",
            "defense": "none",
            "aimed": True,
            "burst": 3,
            "burst_fire": True,
            "cover": cover,
            "modifiers": [{"source": f"bench {n}", "dice": 6} for n in range(8)]
            + [{"source": "bench ninth", "dice": ninth}, {"source": "bench last", "dice": last}],
        }
        for ninth in (6, 5, 4)
        for cover in (8, 6, 5, 4, 3, 0)
        for last in range(6, -1, -1)
    ]
    return "burst of 3, Habileté 5 + Tir 3 + aimed + up to 10 × 6 vs plate 4 + cover", bodies


# Per kind, what the warm-up request changes in the first measured body: another pool.
WARM_UP: dict[str, dict[str, Any]] = {
    "dice": {"notation": "99d7"},
    "vampire.action": {"modifier": 9},
    "jdr.action": {"advantage": False},
    "fabulae.action": {"helpers": 0},
    "fabulae.attack": {"burst": 2},
}


async def _measure(port: int) -> list[KindLatency]:
    user = await _made(port, "/api/v1/users", {"name": "odds bench"})
    key = user["api_key"]
    tables = {
        "dice": await _campaign(port, key, "vampire", VAMPIRE_SHEET),
        "vampire.action": await _campaign(port, key, "vampire", VAMPIRE_SHEET),
        "jdr.action": await _campaign(port, key, "jdr-express-dracula", JDR_SHEET),
        "fabulae.action": await _campaign(port, key, "fabulae-tenebris", FABULAE_SHEET),
        "fabulae.attack": await _campaign(port, key, "fabulae-tenebris", SHOOTER_SHEET),
    }
    campaign, _ = tables["fabulae.attack"]
    plated = await _made(
        port,
        f"/api/v1/campaigns/{campaign}/characters",
        {"name": "Plated", "kind": "npc", "sheet": PLATED_SHEET},
        key,
    )
    found = []
    for kind, (campaign, character) in tables.items():
        if kind == "fabulae.attack":
            pool, bodies = _burst_bodies(character, plated["id"])
        else:
            pool, bodies = _bodies(kind, character)
        latencies, refused = [], 0
        warm_up = {**bodies[0], **WARM_UP[kind]}
        status, answer = await _call(
            port, "POST", f"/api/v1/campaigns/{campaign}/odds", warm_up, key
        )
        assert status == 200, (kind, status, answer)
        for body in bodies:
            # Reading a 200 kB answer allocates enough to set off this process's own full
            # collection, as timeit knows: it is paused while a request is timed, and runs
            # between requests.
            settle_heap()
            gc.disable()
            status, raw, seconds = await _exchange(
                port, "POST", f"/api/v1/campaigns/{campaign}/odds", body, key
            )
            gc.enable()
            answer = json.loads(raw)
            elapsed = seconds * 1000
            if status != 200:
                refused += 1
                print(f"  {kind}: {status} {answer}", flush=True)
                continue
            latencies.append(elapsed)
        found.append(KindLatency(kind, pool, latencies, refused))
    return found


def run_odds(ports: Sequence[int]) -> list[KindLatency]:
    return asyncio.run(_measure(ports[0]))


def report_lines(kinds: list[KindLatency], stats: dict[str, Any] | None) -> list[str]:
    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    lines = [
        "## Odds and statistics",
        "",
        "`POST /campaigns/{id}/odds` at each seed kind's largest allowed pool, through the API "
        "(one client, one worker answering), every request a distinct one so that each is "
        "computed, not served from a cache. A request's time runs from connecting to reading "
        "its answer's last byte, as wrk measures it (the client parses the JSON after), with "
        "the client's own garbage collector paused while it is timed.",
        "",
        "| kind | largest pool | requests | p50 ms | p99 ms | max ms | refused | p99 < 10 ms |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for kind in kinds:
        p99 = kind.percentile(0.99)
        lines.append(
            f"| `{kind.kind}` | {kind.pool} | {len(kind.latencies_ms)} | "
            f"{kind.percentile(0.5):.1f} | {p99:.1f} | {max(kind.latencies_ms, default=0):.1f} | "
            f"{kind.refused} | "
            f"{verdict(p99 < TARGET_P99_MS and not kind.refused)} |"
        )
    if stats is not None:
        lines += [
            "",
            f"`GET /campaigns/{{id}}/stats` on a {stats['rolls']:,}-roll campaign: "
            f"{stats['gm_seconds'] * 1000:.0f} ms for the GM, "
            f"{stats['player_seconds'] * 1000:.0f} ms for a player, "
            f"{stats['grouped_seconds'] * 1000:.0f} ms grouped by actor "
            f"(target: under {stats['target_seconds']:g} s: "
            f"{verdict(bool(stats['ok']))}).",
        ]
    lines.append("")
    return lines

"""One busy table (issue 23): every client rolls into the same campaign.

A convention table, a Discord channel or a bot: its GM and players all roll `3d6kh2` into
one campaign, so every roll waits for the same counter lock (FAIR-5). Each client rolls as
one of the table's members in turn (the GM and 15 players), spread over the workers as in
the many-campaign runs, and /health is measured in alternating rounds beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.load import Result, build_request, call

HOST = "127.0.0.1"
PLAYERS = 15
CONCURRENCY = (16, 64)
TARGET_RATIO = 0.40
TARGET_P99_MS = 100.0


def created(port: int, path: str, body: object, key: str | None = None) -> dict[str, object]:
    """The answer of a POST that must create (201)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    status, answer = call(HOST, port, build_request("POST", path, body=body, headers=headers))
    assert status == 201 and isinstance(answer, dict), (status, answer)
    return answer


def new_table(port: int, name: str, system: str) -> tuple[str, list[str]]:
    """A new campaign of `system` with its GM and PLAYERS players: its id, and the API key
    of each member, its GM's first."""
    gm = created(port, "/api/v1/users", {"name": f"{name} GM"})
    keys = [str(gm["api_key"])]
    campaign = created(port, "/api/v1/campaigns", {"name": name, "system": system}, keys[0])
    for index in range(PLAYERS):
        player = created(port, "/api/v1/users", {"name": f"{name} player {index}"})
        created(
            port,
            f"/api/v1/campaigns/{campaign['id']}/members",
            {"user_id": player["id"], "role": "player"},
            keys[0],
        )
        keys.append(str(player["api_key"]))
    return str(campaign["id"]), keys


def table_requests(port: int) -> list[bytes]:
    """The roll request of each member of one new campaign: its GM's first."""
    campaign, keys = new_table(port, "busy table", "vampire")
    return [
        build_request(
            "POST",
            f"/api/v1/campaigns/{campaign}/rolls",
            body={"kind": "dice", "notation": "3d6kh2"},
            headers={"Authorization": f"Bearer {key}"},
        )
        for key in keys
    ]


def report_lines(rows: Sequence[tuple[int, Result, Result]]) -> list[str]:
    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    def fmt(result: Result) -> str:
        return (
            f"{result.rps:,.0f} | {result.percentile(0.5) * 1000:.1f} | "
            f"{result.percentile(0.99) * 1000:.1f} | {result.errors}"
        )

    by_clients = {clients: (health, rolls) for clients, health, rolls in rows}
    health16, rolls16 = by_clients[16]
    _, rolls64 = by_clients[64]
    ratio = rolls16.rps / health16.rps if health16.rps else 0.0
    p99_64 = rolls64.percentile(0.99) * 1000
    lines = [
        "## One campaign",
        "",
        f"Every client rolls `3d6kh2` into the same campaign as one of its {PLAYERS + 1} "
        "members (the GM and the players in turn), so every roll waits for that campaign's "
        "counter lock (FAIR-5); /health alternates with it as above.",
        "",
        "| clients | GET /health req/s | p50 ms | p99 ms | errors "
        "| POST /rolls, one campaign req/s | p50 ms | p99 ms | errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for clients, health, rolls in rows:
        lines.append(f"| {clients} | {fmt(health)} | {fmt(rolls)} |")
    lines += [
        "",
        "| target (2-core machine) | measured | |",
        "|---|---|---|",
        f"| one campaign ≥ {TARGET_RATIO:.0%} of /health at 16 clients | {ratio:.0%} | "
        f"{verdict(ratio >= TARGET_RATIO)} |",
        f"| throughput at 64 clients ≥ at 16 (no collapse) | {rolls64.rps:,.0f}/s against "
        f"{rolls16.rps:,.0f}/s | {verdict(rolls64.rps >= rolls16.rps)} |",
        f"| one campaign p99 < {TARGET_P99_MS:.0f} ms at 64 clients | {p99_64:.1f} ms | "
        f"{verdict(p99_64 < TARGET_P99_MS)} |",
        "",
        # Little's law, as for the many-campaign table: what the p99 target asks of throughput.
        f"With closed-loop clients the mean latency at 64 clients is 64 divided by the "
        f"throughput: {64 / rolls64.rps * 1000 if rolls64.rps else 0:.0f} ms at "
        f"{rolls64.rps:,.0f} rolls/s. A p99 under {TARGET_P99_MS:.0f} ms needs a mean well "
        f"below it, so well over {64 / TARGET_P99_MS * 1000:,.0f} rolls/s into one campaign; "
        f"/health answered {by_clients[64][0].rps:,.0f} req/s at 64 clients in this run.",
    ]
    return lines

"""Issue 21: the statistics of a 10,000-roll campaign answer in under a second.

`time_stats(host, port)` fills a campaign through the API of a running service (a GM and
a player rolling generic dice, some hidden from the player), then times GET .../stats, best
of `repeat`: as the GM (every roll), as the player (what they may see) and grouped by
actor. bench/run.py can call it with one of its worker ports once its servers run:

    from bench.stats import time_stats
    figures = time_stats(HOST, ports[0])          # {"gm_seconds": ..., "ok": True, ...}

or, against any running service:

    python -m bench.stats --port 8000 [--rolls 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from bench.load import build_request, call, exchange

TARGET_SECONDS = 1.0
# Dice of several sizes: the statistics count the faces of each.
NOTATIONS = ("3d6kh2", "1d20", "2d10", "1d4+1", "4d8kl3")


def _json(host: str, port: int, method: str, path: str, key: str | None = None, body: Any = None):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    status, answer = call(host, port, build_request(method, path, body=body, headers=headers))
    return status, answer


def _register(host: str, port: int, name: str) -> tuple[str, str]:
    status, body = _json(host, port, "POST", "/api/v1/users", body={"name": name})
    assert status == 201 and isinstance(body, dict), body
    return str(body["id"]), str(body["api_key"])


def fill_campaign(
    host: str, port: int, rolls: int = 10_000, parallel: int = 8
) -> tuple[str, str, str]:
    """A campaign holding `rolls` dice rolls, half the GM's (one in four hidden from the
    player), half the player's. Returns the GM's key, the player's key, the campaign id."""
    _, gm = _register(host, port, "bench-stats-gm")
    player_id, player = _register(host, port, "bench-stats-player")
    status, campaign = _json(
        host,
        port,
        "POST",
        "/api/v1/campaigns",
        gm,
        {"name": "bench statistics", "system": "vampire"},
    )
    assert status == 201 and isinstance(campaign, dict), campaign
    campaign_id = str(campaign["id"])
    status, added = _json(
        host,
        port,
        "POST",
        f"/api/v1/campaigns/{campaign_id}/members",
        gm,
        {"user_id": player_id, "role": "player"},
    )
    assert status == 201, added
    path = f"/api/v1/campaigns/{campaign_id}/rolls"

    def body(index: int) -> dict[str, Any]:
        roll: dict[str, Any] = {"kind": "dice", "notation": NOTATIONS[index % len(NOTATIONS)]}
        if index % 8 == 1:
            roll["visibility"] = "gm"
        return roll

    async def writer(worker: int, count: int) -> None:
        reader, stream = await asyncio.open_connection(host, port)
        for step in range(count):
            index = worker + step * parallel
            key = gm if index % 2 else player
            request = build_request(
                "POST", path, body=body(index), headers={"Authorization": f"Bearer {key}"}
            )
            status, answer = await exchange(reader, stream, request)
            assert status == 201, answer
        stream.close()

    async def main() -> None:
        await asyncio.gather(
            *(writer(i, rolls // parallel + (i < rolls % parallel)) for i in range(parallel))
        )

    asyncio.run(main())
    return gm, player, campaign_id


def _best(host: str, port: int, path: str, key: str, repeat: int) -> tuple[float, dict[str, Any]]:
    times = []
    answer: dict[str, Any] = {}
    for _ in range(repeat):
        started = time.perf_counter()
        status, body = _json(host, port, "GET", path, key)
        times.append(time.perf_counter() - started)
        assert status == 200 and isinstance(body, dict), body
        answer = body
    return min(times), answer


def time_stats(
    host: str, port: int, *, rolls: int = 10_000, parallel: int = 8, repeat: int = 3
) -> dict[str, Any]:
    """Fill a `rolls`-roll campaign through the API, then time GET .../stats (best of
    `repeat`) as its GM, as its player, and grouped by actor."""
    started = time.perf_counter()
    gm, player, campaign = fill_campaign(host, port, rolls, parallel)
    filled = time.perf_counter() - started
    path = f"/api/v1/campaigns/{campaign}/stats"
    gm_seconds, gm_answer = _best(host, port, path, gm, repeat)
    assert gm_answer["rolls"] == rolls, gm_answer["rolls"]
    player_seconds, player_answer = _best(host, port, path, player, repeat)
    hidden = sum(1 for index in range(rolls) if index % 8 == 1 and index % 2)
    assert player_answer["rolls"] == rolls - hidden, player_answer["rolls"]
    grouped_seconds, _ = _best(host, port, f"{path}?group_by=actor", gm, repeat)
    slowest = max(gm_seconds, player_seconds, grouped_seconds)
    return {
        "rolls": rolls,
        "fill_seconds": filled,
        "gm_seconds": gm_seconds,
        "player_seconds": player_seconds,
        "grouped_seconds": grouped_seconds,
        "target_seconds": TARGET_SECONDS,
        "ok": slowest < TARGET_SECONDS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--rolls", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(time_stats(args.host, args.port, rolls=args.rolls, repeat=args.repeat)))


if __name__ == "__main__":
    main()

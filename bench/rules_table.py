"""One busy table of rules rolls (issue 23): `python -m bench.rules_table`.

`make bench`'s tables roll generic dice. A table of rules rolls reads more while its
campaign is locked: each roll's character, the running encounters (a combatant acts through
its encounter) and the hidden rolls waiting for the GM (FAIR-21). Here 15 players each roll
`jdr.action` for their own character into one JDR Express campaign, on the bench's workers
and database, at 15 and 60 clients; bench/profile.md reports what it measured.
"""

from __future__ import annotations

import argparse
import os

from bench.load import build_request, run_load
from bench.odds import JDR_SHEET
from bench.one_campaign import HOST, created, new_table
from bench.run import DEFAULT_URL, prepare_database, start_servers, stop

CONCURRENCY = (15, 60)


def table_requests(port: int) -> list[bytes]:
    """Each player's `jdr.action` for their own character, in one new campaign."""
    campaign, keys = new_table(port, "rules table", "jdr-express-dracula")
    rolls = f"/api/v1/campaigns/{campaign}/rolls"
    requests = []
    for index, key in enumerate(keys[1:]):  # the players'
        character = created(
            port,
            f"/api/v1/campaigns/{campaign}/characters",
            {"name": f"PJ {index}", "kind": "pc", "sheet": JDR_SHEET},
            key,
        )
        body = {"kind": "jdr.action", "character_id": character["id"], "trait": "mental"}
        requests.append(
            build_request("POST", rolls, body=body, headers={"Authorization": f"Bearer {key}"})
        )
    return requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    prepare_database(url)
    ports, servers = start_servers(url, args.workers)
    try:
        requests = table_requests(ports[0])
        for clients in CONCURRENCY:
            result = run_load(
                HOST,
                ports,
                lambda index: requests[index % len(requests)],
                clients=clients,
                seconds=args.seconds,
                expected=201,
            )
            print(
                f"{clients} clients: {result.rps:,.0f} rolls/s, p50 "
                f"{result.percentile(0.5) * 1000:.0f} ms, p99 "
                f"{result.percentile(0.99) * 1000:.0f} ms, {result.errors} errors",
                flush=True,
            )
    finally:
        stop(servers)


if __name__ == "__main__":
    main()

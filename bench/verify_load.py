"""Roll latency in one campaign while another user verifies a long log in a loop (issue 16).

Both go to the same worker. Three runs of a single table rolling at its own pace: quiet;
while the verifier loops GET /log/verify on an unchanged log (the cache answers after the
first); and while the verifier adds a roll to its log before each verification, so every
one re-checks the whole log in the heavy-read threads.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from bench.load import Result, build_request, exchange, run_load, run_loop, settle_heap


@dataclass
class VerifyingRun:
    rolls: Result
    verifications: int


def verify_loop(
    host: str,
    port: int,
    roll: bytes,
    *,
    verifier: tuple[str, str],
    moving_head: bool,
    seconds: float,
    warmup: float = 1.0,
) -> VerifyingRun:
    key, campaign = verifier
    auth = {"Authorization": f"Bearer {key}"}
    verify = build_request("GET", f"/api/v1/campaigns/{campaign}/log/verify", headers=auth)
    grow = build_request(
        "POST",
        f"/api/v1/campaigns/{campaign}/rolls",
        body={"kind": "dice", "notation": "1d6"},
        headers=auth,
    )

    async def main() -> VerifyingRun:
        settle_heap()  # as the quiet run (run_load) does: the two are compared
        result = Result(seconds=seconds)
        start = time.perf_counter()
        warmup_end, end = start + warmup, start + warmup + seconds
        verified = 0

        async def roller() -> None:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                while (now := time.perf_counter()) < end:
                    status, _ = await exchange(reader, writer, roll)
                    done = time.perf_counter()
                    if now >= warmup_end and done <= end:
                        result.requests += 1
                        result.latencies.append(done - now)
                        result.errors += status != 201
            finally:
                writer.close()

        async def verifying() -> None:
            nonlocal verified
            reader, writer = await asyncio.open_connection(host, port)
            try:
                while time.perf_counter() < end:
                    if moving_head:
                        status, body = await exchange(reader, writer, grow)
                        assert status == 201, body
                    status, body = await exchange(reader, writer, verify)
                    assert status == 200 and b'"ok":true' in body, body
                    verified += 1
            finally:
                writer.close()

        await asyncio.gather(roller(), verifying())
        return VerifyingRun(result, verified)

    return run_loop(main())


def quiet(host: str, port: int, roll: bytes, seconds: float) -> Result:
    return run_load(host, [port], lambda _: roll, clients=1, seconds=seconds, expected=201)

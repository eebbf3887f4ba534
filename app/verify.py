"""nocturne-verify: check an exported campaign log offline (FAIR-15).

    python -m app.verify EXPORT.ndjson [--campaign-id ID]

No server and no database: the hash chain, seq, epochs and commitments, the draws of every
closed epoch re-derived from the seeds its epoch_closed entry revealed, and every roll
replayed through the rules. Prints a one-line summary; exits 1 at the first failure (with
its seq and reason), 2 when the file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.engine.audit import verify_log


def read_export(path: Path) -> list[dict[str, Any]]:
    entries = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"line {number} is not JSON: {exc.msg}") from None
            if not isinstance(entry, dict):
                raise ValueError(f"line {number} is not a JSON object")
            entries.append(entry)
    return entries


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nocturne-verify", description="Verify an exported Nocturne campaign log offline."
    )
    parser.add_argument("export", type=Path, help="the NDJSON file from GET .../log/export")
    parser.add_argument(
        "--campaign-id",
        help="campaign id for re-deriving draws (read from the epoch_opened entries otherwise)",
    )
    args = parser.parse_args(argv)
    try:
        entries = read_export(args.export)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.export}: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print(f"FAIL: {args.export} holds no entry")
        return 1
    report = verify_log(entries, campaign_id=args.campaign_id)
    summary = (
        f"{report.entries_checked} entries checked, {report.rederived} re-derived, "
        f"{report.replayed} replayed"
    )
    if report.first_failure is not None:
        failure = report.first_failure
        print(f"FAIL at seq {failure.seq}: {failure.reason} ({summary})")
        return 1
    redacted = sum(1 for entry in entries if entry.get("redacted"))
    note = f", {redacted} redacted (chain checked only)" if redacted else ""
    print(f"OK: {summary}{note}; last hash {entries[-1]['hash']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

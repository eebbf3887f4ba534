"""nocturne-verify: check an exported campaign log offline (FAIR-15).

    python -m app.verify EXPORT.ndjson [--campaign-id ID]

No server and no database: the hash chain, seq, epochs and commitments, the draws of every
closed epoch re-derived from the seeds its epoch_closed entry revealed, and every roll
replayed through the rules. With --head SEQ:HASH (the export's Log-Head header) it also
proves nothing was cut from the end. Prints a one-line summary; exits 1 at the first
failure (with its seq and reason), 2 when the file cannot be opened.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.engine.audit import verify_log
from app.engine.canonical import decode_json
from app.engine.registry import DEFAULT_REGISTRY


def read_export(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """The entries up to the first unreadable line, and why that line could not be read."""
    entries: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = decode_json(line)
            except json.JSONDecodeError as exc:
                return entries, f"line {number} is cut off or not JSON ({exc.msg})"
            if not isinstance(entry, dict):
                return entries, f"line {number} is not a JSON object"
            entries.append(entry)
    return entries, None


def parse_head(text: str) -> tuple[int, str]:
    seq, _, digest = text.partition(":")
    if not seq.isdigit() or len(digest) != 64:
        raise argparse.ArgumentTypeError("expected SEQ:HASH, as in the export's Log-Head header")
    return int(seq), digest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nocturne-verify", description="Verify an exported Nocturne campaign log offline."
    )
    parser.add_argument("export", type=Path, help="the NDJSON file from GET .../log/export")
    parser.add_argument(
        "--campaign-id",
        help="campaign id for re-deriving draws (read from the epoch_opened entries otherwise)",
    )
    parser.add_argument(
        "--head",
        type=parse_head,
        help="SEQ:HASH the log must end on (the export's Log-Head header); catches a cut tail",
    )
    args = parser.parse_args(argv)
    try:
        entries, unreadable = read_export(args.export)
    except OSError as exc:
        print(f"cannot read {args.export}: {exc}", file=sys.stderr)
        return 2
    report = verify_log(
        entries, registry=DEFAULT_REGISTRY, campaign_id=args.campaign_id, head=args.head
    )
    summary = (
        f"{report.entries_checked} entries checked, {report.rederived} re-derived, "
        f"{report.replayed} replayed"
    )
    if report.first_failure is not None:
        failure = report.first_failure
        print(f"FAIL at seq {failure.seq}: {failure.reason} ({summary})")
        return 1
    if unreadable is not None:
        next_seq = entries[-1]["seq"] + 1 if entries else 1
        print(f"FAIL at seq {next_seq}: {unreadable} ({summary})")
        return 1
    if not entries:
        print(f"FAIL: {args.export} holds no entry")
        return 1
    print(f"OK: {summary}; last hash {entries[-1]['hash']}")
    for title, tally in (
        ("not re-derived", report.not_rederived),
        ("checked by chain only", report.chain_only),
    ):
        for reason, count in sorted(tally.items()):
            print(f"  {count} {title}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

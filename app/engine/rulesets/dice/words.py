"""The label a roll may carry (issue 21): short, printable."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

# ≤ 100 characters, no control characters (a label is shown on one line).
Label = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f\x7f]*$")
]

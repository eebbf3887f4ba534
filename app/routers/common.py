"""Query parameters shared by the routers."""

from typing import Annotated

from fastapi import Query

MAX_PAGE_SIZE = 200

Limit = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description="page size (≤ 200)")]
Offset = Annotated[int, Query(ge=0, le=1_000_000, description="rows to skip")]

"""One Settings object, read from the environment (and an optional .env file)."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from limits import parse
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./nocturne.db",
        description="SQLAlchemy URL; the default is an embedded SQLite file",
    )
    allow_registration: bool = Field(default=True, description="POST /users is open to anyone")
    registration_token: str | None = Field(
        default=None,
        description="when set, POST /users needs it in the Registration-Token header (for a "
        "public deployment)",
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated origins allowed by CORS (none default)"
    )
    log_level: str = "INFO"
    worker_threads: int | None = Field(
        default=None, ge=1, le=200, description="threads per worker (see thread_pool_size)"
    )
    sqlite_busy_timeout_ms: int = 30_000
    max_body_bytes: int = Field(
        default=1_048_576, ge=1024, description="largest request body, counted while read (413)"
    )
    max_json_depth: int = Field(
        default=32, ge=4, le=200, description="deepest nesting of JSON arrays and objects (422)"
    )
    roll_threads: int | None = Field(
        default=None, ge=1, le=64, description="threads per worker making the rolls' batches"
    )
    roll_loop_connections: int = Field(
        default=16,
        ge=0,
        le=64,
        description="PostgreSQL connections per worker for the rolls on a known head it awaits "
        "on its event loop, and the feed's notices of those rolls (0: they take a thread)",
    )
    heavy_read_threads: int = Field(
        default=2, ge=1, le=32, description="threads per worker for log verification and export"
    )
    heavy_reads_per_user: int = Field(
        default=1, ge=1, le=32, description="verifications and exports one user may run at once"
    )
    rate_limits_enabled: bool = Field(default=True, description="count and enforce the limits")
    redis_url: str | None = Field(
        default=None,
        description="redis://host:port/db: rate-limit counters shared by every worker and "
        "server (in each process's memory when unset)",
    )
    rate_limit_writes: str = Field(
        default="120/minute", description="POST, PUT, PATCH, DELETE per API key"
    )
    rate_limit_expensive_reads: str = Field(
        default="30/minute", description="log verification and export per API key"
    )
    rate_limit_registrations: str = Field(
        default="30/hour", description="POST /users per client address"
    )
    rate_limit_failed_auth: str = Field(
        default="30/minute", description="requests answered 401 per client address"
    )
    feed_heartbeat_seconds: float = Field(
        default=15.0, gt=0, le=300, description="a comment line on every event stream this often"
    )
    feed_recheck_seconds: float = Field(
        default=10.0,
        gt=0,
        le=600,
        description="how often a followed campaign's log and members are read even with no "
        "notification (what a lost notification would have said)",
    )
    feed_streams_per_user: int = Field(
        default=20, ge=1, le=1000, description="event streams one user may hold open at once"
    )
    feed_max_streams: int = Field(
        default=2000, ge=1, description="event streams one worker process holds open at most"
    )
    webhook_delivery_enabled: bool = Field(
        default=True, description="this process posts the webhooks' pending deliveries"
    )
    webhook_allow_private_addresses: bool = Field(
        default=False,
        description="allow webhook URLs on loopback and private addresses (tests, a LAN bot)",
    )
    webhook_timeout_seconds: float = Field(
        default=10.0, gt=0, le=60, description="how long one webhook POST may take"
    )
    webhook_disable_after_seconds: float = Field(
        default=86_400.0, gt=0, description="a webhook failing this long is disabled (a day)"
    )

    @field_validator(
        "rate_limit_writes",
        "rate_limit_expensive_reads",
        "rate_limit_registrations",
        "rate_limit_failed_auth",
    )
    @classmethod
    def _parses_as_a_limit(cls, value: str) -> str:
        # Refuse a typo at start-up rather than on the first request it would limit.
        parse(value)
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        # CORS_ORIGINS is written "https://a.example,https://b.example" in the environment.
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def thread_pool_size(self) -> int:
        """Threads per worker for sync endpoints: WORKER_THREADS, or a default by database.

        PostgreSQL: three keep a worker busy while the others wait on the database (an
        audited roll's transaction is three round trips, its commit waiting for the WAL
        flush); many more only contend for the GIL. On 2 cores, 3 threads served audited
        rolls 5-25% faster than 2 with one campaign per client (p99 at 64 clients about
        100 ms against 100-145 ms), 4 no better than 3, and 8 about 25% slower than 2.
        SQLite: a writer waits for the file's lock in its thread, up to
        the busy timeout, so eight keep the reads flowing meanwhile.
        """
        if self.worker_threads is not None:
            return self.worker_threads
        return 8 if self.is_sqlite else 3

    @property
    def roll_pool_size(self) -> int:
        """Threads per worker making the rolls' batches: ROLL_THREADS, or a default by
        database. PostgreSQL: 8 (app/services/roll_batches.py says why not more). SQLite:
        2, as its writers take turns on the file's lock, and so that its pool's 15
        connections cover every thread (8 for requests, 2 for heavy reads, these 2)."""
        if self.roll_threads is not None:
            return self.roll_threads
        return 2 if self.is_sqlite else 8


@lru_cache
def get_settings() -> Settings:
    return Settings()

"""One Settings object, read from the environment (and an optional .env file)."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./nocturne.db",
        description="SQLAlchemy URL; the default is an embedded SQLite file",
    )
    allow_registration: bool = Field(default=True, description="POST /users is open to anyone")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated origins allowed by CORS (none default)"
    )
    log_level: str = "INFO"
    # Sync endpoints run in a thread pool. Two threads per worker keep it busy while one
    # waits on the database; more only contend for the GIL (on 2 cores, 2 threads served
    # audited rolls 25% faster than 8, see BENCHMARKS.md). Raise it where slow requests,
    # such as verifying very long logs, would otherwise hold both threads.
    worker_threads: int = Field(default=2, ge=1, le=200)
    sqlite_busy_timeout_ms: int = 30_000

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


@lru_cache
def get_settings() -> Settings:
    return Settings()

"""The FastAPI application: routers under /api/v1, problem+json errors, request logs, CORS."""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any

import anyio
from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.utils import get_openapi

from app.core.conditional import ConditionalGetMiddleware, document_conditional_gets
from app.core.database import get_engine
from app.core.logging import RequestLogMiddleware, configure_logging
from app.core.loop_connections import serving_loop
from app.core.openapi_links import add_links
from app.core.problems import Problem, index_rule_documents, install_problem_handlers
from app.core.rate_limits import Limits, RateLimitMiddleware, document_rate_limits, make_storage
from app.core.request_guard import RequestGuardMiddleware
from app.core.security_headers import SecurityHeadersMiddleware
from app.core.settings import Settings, get_settings
from app.engine.registry import DEFAULT_REGISTRY, Registry
from app.routers import (
    campaigns,
    characters,
    encounters,
    events,
    fairness,
    health,
    invitations,
    log,
    members,
    odds,
    roll_requests,
    rolls,
    systems,
    users,
    webhooks,
)
from app.services.feed.broker import broker as feed_broker
from app.services.webhooks.dispatch import start_sender
from app.web import router as web

API_PREFIX = "/api/v1"

DESCRIPTION = """
Nocturne runs tabletop role-playing campaigns (JDR Express Dracula and Cthulhu, Fabulae
Tenebris, Vampire): character sheets, rules, and dice from a committed, server-side seeded
stream whose every roll lands in a hash-chained audit log anyone can verify.

Authenticate with `Authorization: Bearer <api_key>` (register with `POST /api/v1/users`).
Errors are RFC 9457 `application/problem+json`.
"""


@functools.cache
def tune_garbage_collector() -> None:
    """Once per process, when the app starts serving."""
    # What start-up loaded (modules, models, routes) lives as long as the process: freezing
    # it spares every full collection from scanning it again. Unfrozen, a full collection
    # paused a worker for about 35 ms, which set the tail latency under load.
    gc.collect()
    gc.freeze()
    # A request allocates thousands of objects that die with it; collecting the young
    # generation every 700 allocations (the default) cost 5-8% of an audited roll's CPU.
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
    # A log verification holds the GIL for long stretches in its own thread; a roll's thread
    # waits for it at each database round trip, up to the switch interval each time (5 ms by
    # default). A shorter interval keeps rolls quick while a long log is verified (see
    # BENCHMARKS.md).
    sys.setswitchinterval(0.0005)


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = get_settings().thread_pool_size
    tune_garbage_collector()
    settings = get_settings()
    sender = start_sender(get_engine(), settings) if settings.webhook_delivery_enabled else None
    # A roll on a known head awaits its statement on this loop (app/core/loop_connections.py).
    async with serving_loop(settings.roll_loop_connections):
        yield
    await feed_broker.close()  # its rooms and PostgreSQL listener
    if sender is not None:
        await anyio.to_thread.run_sync(sender.stop)  # after the POST in progress


# The order the API docs present the resources in, each with its module's summary.
DOCUMENTED = (
    health,
    users,
    systems,
    campaigns,
    members,
    invitations,
    characters,
    roll_requests,
    rolls,
    log,
    fairness,
    encounters,
    events,
    webhooks,
)
# The order requests are matched in. FastAPI tries the included routers one after the other,
# at a cost for each (behind six routers, an audited roll spent 90 µs, 7% of its CPU, being
# routed): the table's hot paths come right after the health check.
MATCHED = (
    health,
    rolls,
    log,
    odds,
    roll_requests,
    users,
    systems,
    campaigns,
    members,
    invitations,
    characters,
    fairness,
    encounters,
    events,
    webhooks,
)
TAGS = {
    health: "health",
    users: "users",
    systems: "systems",
    campaigns: "campaigns",
    members: "members",
    invitations: "invitations",
    characters: "characters",
    roll_requests: "roll-requests",
    rolls: "rolls",
    log: "log",
    fairness: "fairness",
    encounters: "encounters",
    events: "events",
    webhooks: "webhooks",
}


def _router(module: ModuleType, registry: Registry) -> APIRouter:
    """A module's router: built for the registry when its shapes depend on the rulesets."""
    build = getattr(module, "build", None)
    router: APIRouter = build(registry) if build is not None else module.router
    return router


def create_app(registry: Registry | None = None, settings: Settings | None = None) -> FastAPI:
    """The API for a registry of rulesets (by default the service's own list, RULESETS)."""
    settings = settings or get_settings()
    configure_logging(settings.log_level)
    registry = registry or DEFAULT_REGISTRY
    app = FastAPI(
        title="Nocturne",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_tags=[
            {"name": TAGS[module], "description": module.__doc__} for module in DOCUMENTED
        ],
    )
    index_rule_documents(registry)
    install_problem_handlers(app)
    for module in MATCHED:
        app.include_router(_router(module, registry), prefix=API_PREFIX)
    web.mount(app)  # the page, after the API: never in the way of the hot paths
    app.add_middleware(ConditionalGetMiddleware, api_prefix=API_PREFIX)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                "Idempotency-Key",
                "X-Request-ID",
                "If-None-Match",
                "If-Match",
            ],
            expose_headers=["X-Request-ID", "Idempotent-Replayed", "ETag", "Log-Head"],
        )
    app.add_middleware(
        RequestGuardMiddleware,
        max_body_bytes=settings.max_body_bytes,
        max_json_depth=settings.max_json_depth,
    )
    if settings.rate_limits_enabled:
        app.add_middleware(
            RateLimitMiddleware,
            limits=Limits.from_text(
                writes=settings.rate_limit_writes,
                expensive_reads=settings.rate_limit_expensive_reads,
                registrations=settings.rate_limit_registrations,
                failed_auth=settings.rate_limit_failed_auth,
            ),
            storage=make_storage(settings.redis_url),
            api_prefix=API_PREFIX,
        )
    app.add_middleware(SecurityHeadersMiddleware, api_prefix=API_PREFIX)
    app.add_middleware(RequestLogMiddleware)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
                tags=app.openapi_tags,
            )
            # problem+json responses reference this schema; FastAPI does not emit it itself.
            problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(problem.pop("$defs", {}))
            components["Problem"] = problem
            add_links(schema)  # which response feeds which call (stateful clients, fuzzing)
            document_conditional_gets(schema, API_PREFIX)
            if settings.rate_limits_enabled:
                document_rate_limits(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


app = create_app()

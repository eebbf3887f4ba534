"""Group commit for one busy campaign (issue 23): the rolls of a campaign that queue in one
process while its previous transaction runs are made together, in one transaction.

Every roll of a campaign waits for its counter lock (FAIR-5). One at a time, each roll pays
for taking that lock, a thread of the pool, and a commit; a busy table's rolls then queue
for the lock and the table's throughput falls as more players roll. Here a campaign's rolls
wait in the event loop instead, holding no thread and no connection, and one drain per
campaign and process takes them all: one thread, one lock, one commit for the batch, each
roll still its own entry, sealed onto the chain in arrival order.

A roll refused while it is checked (`check_roll`: nothing of it is recorded yet) wrote
nothing: it is answered with its refusal and the batch goes on. A batch is otherwise all
or nothing like a single roll: when any roll fails otherwise (a member removed
meanwhile, a resource the rules find spent as they resolve), the batch is rolled back and
each of its rolls is made again on its own, so each gets exactly the answer it would have
had alone; nothing of a rolled-back batch was ever seen (FAIR-5: its seqs and dice are
drawn again). Retries with an Idempotency-Key and answers to roll requests take the single
path.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from fastapi.responses import Response
from pydantic import BaseModel
from pydantic_core import to_json
from sqlmodel import Session

from app.core.problems import ProblemError
from app.core.settings import get_settings
from app.engine.contract import Language
from app.engine.errors import EngineError
from app.engine.registry import Registry
from app.models import Encounter, User
from app.services.access import (
    CampaignAccess,
    LockedAccess,
    LockedCampaign,
    campaign_not_found,
    get_campaign_access,
    lock_member_roles,
    locked_access_for,
)
from app.services.awaiting import running_encounters
from app.services.idempotency import json_response, run_idempotent
from app.services.known_head import known_heads, remember_locked_roll, roll_on_known_head
from app.services.log import SHARED_WAITS, SealedEntry
from app.services.rolls import check_roll, create_roll, record_roll
from app.services.table import load_characters, named_ids
from app.services.views import roll_view

# A batch is one transaction: its rolls wait for its commit, so a batch is kept short.
MAX_BATCH = 32

Job = TypeVar("Job")
Answer = TypeVar("Answer")


@dataclass
class _Queue(Generic[Job, Answer]):
    waiting: list[tuple[Job, asyncio.Future[Answer]]] = field(default_factory=list)
    drain: asyncio.Task[None] | None = None  # held here: the loop keeps only a weak reference


class CampaignBatches(Generic[Job, Answer]):
    """Per campaign, the jobs waiting in this process and the one drain making them.

    `make_batch` runs in a thread of the pool and answers each job of its batch, in order.
    """

    def __init__(
        self, make_batch: Callable[[Sequence[Job]], list[Answer]], max_batch: int = MAX_BATCH
    ) -> None:
        self._make_batch = make_batch
        self._max_batch = max_batch
        # By event loop too: a process serves from one, but each of a test's clients runs
        # its own, and a future is answered only on the loop that awaits it.
        self._queues: dict[tuple[asyncio.AbstractEventLoop, uuid.UUID], _Queue[Job, Answer]] = {}
        self.batches = 0  # batches made by this process (how many jobs shared them: tests)

    @property
    def campaigns_waiting(self) -> int:
        """Campaigns with rolls queued or being made in this process."""
        return len(self._queues)

    async def submit(self, campaign_id: uuid.UUID, job: Job) -> Answer:
        """The job's answer, once the batch it joined has committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Answer] = loop.create_future()
        key = (loop, campaign_id)
        queue = self._queues.get(key)
        if queue is None:
            queue = self._queues[key] = _Queue()
            queue.waiting.append((job, future))
            # The drain runs apart from this request, so that a client that goes away does
            # not cancel the batch the others wait for.
            queue.drain = loop.create_task(self._drain(key, queue))
        else:
            queue.waiting.append((job, future))
        return await future

    async def _drain(
        self, key: tuple[asyncio.AbstractEventLoop, uuid.UUID], queue: _Queue[Job, Answer]
    ) -> None:
        try:
            while queue.waiting:
                batch = queue.waiting[: self._max_batch]
                del queue.waiting[: self._max_batch]
                jobs = [job for job, _ in batch]
                try:
                    answers = await in_batch_thread(self._make_batch, jobs)
                except BaseException as error:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    if not isinstance(error, Exception):
                        raise
                    continue
                self.batches += 1
                for (_, future), answer in zip(batch, answers, strict=True):
                    if not future.done():
                        future.set_result(answer)
        finally:
            del self._queues[key]
            for _, future in queue.waiting:  # only when cancelled, at shutdown
                if not future.done():
                    future.cancel()


@functools.cache
def _batch_threads() -> ThreadPoolExecutor:
    """The threads making the batches (ROLL_THREADS per worker): a batch is Python work
    around short waits for the database, so threads past a few only contend for the
    interpreter's lock, and for the event loop's turn with them (bench/profile.md, stop
    48). Rolls of more campaigns wait in the pool's queue, holding no connection."""
    return ThreadPoolExecutor(get_settings().roll_pool_size, thread_name_prefix="roll-batch")


async def in_batch_thread(
    make: Callable[[Sequence[Job]], list[Answer]], jobs: Sequence[Job]
) -> list[Answer]:
    """`make(jobs)` on a thread of the batches' pool, with the caller's context variables.

    Not anyio's to_thread (the request threads' pool): its hand-off, to a thread of its own
    for each call, costs more CPU than a thread pool's shared queue (bench/profile.md), and
    every roll makes one. A cancelled caller (at shutdown) cancels a batch still waiting for
    a thread, which then never runs; one that has begun runs its course, its transaction
    committed or rolled back, and the caller waits for it.
    """
    submitted = _batch_threads().submit(contextvars.copy_context().run, make, jobs)
    made = asyncio.wrap_future(submitted)
    try:
        return await asyncio.shield(made)
    except asyncio.CancelledError:
        if not submitted.cancel():  # begun
            await asyncio.wait([made])
        raise


# --- the rolls of a campaign ----------------------------------------------------------------


@dataclass(frozen=True)
class RollJob:
    """One POST .../rolls waiting for its batch: its request's session, caller and body."""

    session: Session
    user: User
    campaign_id: uuid.UUID
    body: BaseModel
    language: Language


# A job's answer: its response, or the error its request raises (as the single path would).
RollAnswer = Response | Exception


def roll_alone(registry: Registry, job: RollJob) -> Response:
    """One roll in its own transaction: the lock, the roll, the commit, then its view; a
    plain dice roll on a head this worker knows in one statement (known_head.py)."""
    session = job.session
    made = roll_on_known_head(registry, session, job.user, job.campaign_id, job.body, job.language)
    if made is not None:
        return made
    locked: list[tuple[LockedCampaign, LockedAccess]] = []

    def work() -> tuple[SealedEntry, CampaignAccess]:
        access = get_campaign_access(session, job.campaign_id, job.user, lock=True)
        locked.append((replace(access.campaign), access))
        return create_roll(session, access, registry, job.body), access

    def present(made: tuple[SealedEntry, CampaignAccess]) -> dict[str, object]:
        return roll_view(made[0], made[1], registry, job.language)

    answer = run_idempotent(session, job.user, str(job.campaign_id), None, 201, work, present)
    remember_locked_roll(session, *locked[0])
    return answer


def make_rolls(registry: Registry) -> Callable[[Sequence[RollJob]], list[RollAnswer]]:
    """The batch maker of the rolls router: one transaction on the first job's session."""

    def make(jobs: Sequence[RollJob]) -> list[RollAnswer]:
        if len(jobs) > 1:
            made = _together(registry, jobs)
            if made is not None:
                return made
        answers: list[RollAnswer] = []
        for job in jobs:
            try:
                answers.append(roll_alone(registry, job))
            except Exception as error:
                answers.append(error)
            finally:
                _end_transaction(job.session)
        return answers

    return make


def _together(registry: Registry, jobs: Sequence[RollJob]) -> list[RollAnswer] | None:
    """The jobs' rolls in one transaction, or None when one failed (all rolled back).

    A roll refused while it is checked (a bad notation, a choice that is not the roller's,
    a sheet a hidden roll holds) wrote nothing: it gets its refusal and the batch goes on,
    so that one member's refused rolls do not make the others' batch again one by one."""
    session = jobs[0].session
    for job in jobs[1:]:
        _end_transaction(job.session)  # the batch runs in the first job's session
    known_heads.forget(jobs[0].campaign_id)  # its appends move the head
    try:
        made: list[tuple[SealedEntry, LockedAccess] | Exception] = []
        # One lock for the batch: the first roll's, then its other members' rows at once.
        # Each later roll reads the campaign as the roll before left it, not again from
        # the database: a round trip less per roll while the campaign is locked.
        first = jobs[0]
        access = get_campaign_access(session, first.campaign_id, first.user, lock=True)
        roles = lock_member_roles(session, access, {job.user.id for job in jobs})
        # And the characters its rolls name, in one query rather than one or two a roll;
        # held until the rules ran (the session keeps only weak references).
        held = load_characters(session, first.campaign_id, named_ids(job.body for job in jobs))

        @functools.cache
        def running() -> Sequence[Encounter]:
            # Read once, when a roll first asks: no roll writes an encounter, and every
            # request that does takes the campaign's lock, which the batch holds.
            return running_encounters(session, first.campaign_id)

        # The hidden rolls waiting for the GM (FAIR-21), read once and read again after a
        # roll of the batch writes held effects (app/services/log.py, forget_waits).
        session.info[SHARED_WAITS] = {}
        for job in jobs:
            if job is not first:
                role = roles.get(job.user.id)
                if role is None:
                    raise campaign_not_found(job.campaign_id)
                access = locked_access_for(access, job.user, role)
            try:
                checked = check_roll(session, access, registry, job.body, running)
            except (EngineError, ProblemError) as refused:
                made.append(refused)
                continue
            made.append((record_roll(session, access, registry, checked), access))
        del held
        session.commit()
    except Exception:
        session.rollback()
        session.expunge_all()
        return None
    finally:
        session.info.pop(SHARED_WAITS, None)
    answers: list[RollAnswer] = []
    for job, outcome in zip(jobs, made, strict=True):
        if isinstance(outcome, Exception):
            answers.append(outcome)
            continue
        entry, access = outcome
        try:
            view = roll_view(entry, access, registry, job.language)
            answers.append(json_response(to_json(view), 201))
        except Exception as error:
            answers.append(error)
    return answers


def _end_transaction(session: Session) -> None:
    if session.in_transaction():
        session.expunge_all()
        session.rollback()

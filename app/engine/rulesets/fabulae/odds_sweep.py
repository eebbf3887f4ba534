"""The classes of a pushed roll's rerolled dice, and their sweep by their sixes (FAB-31;
issue 21). A roll reads its dice by their sixes and a stress die's 1 alone (FAB-11, FAB-42),
so the rerolled dice count by class (how many sixes, a Panic or not), one face standing for
each class's ways; a 1 anywhere is the push's price (FAB-32), counted apart. A roll of n
dice has n + 1 classes of each, but what its rules decide moves by steps, never back as
the sixes grow: the outcome, and within one outcome a six adds at most one Prouesse, one
net six, one damage (FAB-11, FAB-36, FAB-66); the other values step as the outcome does or
jump (a danger's damage, a power's −2 to −4 malus, FAB-73, FAB-102).

So the classes are replayed at the ends of a run of sixes, and the run is read from its
ends when they agree: the same outcome, the same fresh dice's ways, every value equal, and
each value a six moves by one (`per_six`) equal or apart by exactly the run's length. Being
monotone, a value equal at both ends never moved; moving by one a six at most, a value
apart by the whole run moved by one at every six. Otherwise the run is halved and each
half swept the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from app.engine.rulesets.fabulae.odds import binomial_row, poly_mul

# A face that stands for every 2..5: a Fabulae roll reads none of them (FAB-11, FAB-42).
BLANK: Final = 2

# What one replay of a class reads: the outcome's code, the values the odds count, and the
# ways of the fresh dice by the damage their sixes absorb (FAB-67).
Read = tuple[str, Mapping[str, int], Mapping[int, int]]
Reads = Sequence[Read]
# Per read, per value: how much it moves a six (−1, 0 or +1).
Slopes = list[dict[str, int]]


def swept(
    sixes: Sequence[int], replay: Callable[[int], Reads], per_six: frozenset[str]
) -> dict[int, Reads]:
    """What every class of `sixes` (consecutive counts, one outcome's sixes apart) reads,
    replaying only the ends of the runs whose ends do not agree."""
    known: dict[int, Reads] = {}
    read: dict[int, Reads] = {}

    def at(index: int) -> Reads:
        if index not in known:
            known[index] = replay(sixes[index])
        return known[index]

    runs = [(0, len(sixes) - 1)] if sixes else []
    while runs:
        low, high = runs.pop()
        first, last = at(low), at(high)
        if high - low < 2:
            continue
        slopes = _in_line(first, last, sixes[high] - sixes[low], per_six)
        if slopes is None:
            middle = (low + high) // 2
            runs += [(middle, high), (low, middle)]
            continue
        for index in range(low + 1, high):
            read[sixes[index]] = _moved(first, slopes, sixes[index] - sixes[low])
    for index, reads in known.items():
        read[sixes[index]] = reads
    return read


def _in_line(first: Reads, last: Reads, run: int, per_six: frozenset[str]) -> Slopes | None:
    """Each value's move a six if the run's ends agree, else None."""
    if len(first) != len(last):
        return None
    slopes: Slopes = []
    for (code, values, fresh), (code_last, values_last, fresh_last) in zip(
        first, last, strict=True
    ):
        if code != code_last or fresh != fresh_last or values.keys() != values_last.keys():
            return None
        moves: dict[str, int] = {}
        for name, value in values.items():
            apart = values_last[name] - value
            if apart and (name not in per_six or abs(apart) != run):
                return None
            moves[name] = apart // run
        slopes.append(moves)
    return slopes


def _moved(first: Reads, slopes: Slopes, steps: int) -> Reads:
    return [
        (code, {name: value + moves[name] * steps for name, value in values.items()}, fresh)
        for (code, values, fresh), moves in zip(first, slopes, strict=True)
    ]


def read_classes(pool: int, stress: int) -> dict[tuple[int, bool], dict[bool, int]]:
    """The rerolled dice by what a roll reads of them: its sixes, pool and stress dice alike
    (FAB-11, FAB-42), and a 1 on a stress die, Panic (FAB-42); each class's ways by whether
    a 1 shows among them, the push's price (FAB-32). Of n dice, k sixes and no 1 come
    C(n,k)·4^(n−k) ways, k sixes C(n,k)·5^(n−k)."""
    pool_calm, pool_all = binomial_row(pool, 4), binomial_row(pool, 5)
    stress_calm, stress_all = binomial_row(stress, 4), binomial_row(stress, 5)
    pool_one = [every - calm for every, calm in zip(pool_all, pool_calm, strict=True)]
    stress_one = [every - calm for every, calm in zip(stress_all, stress_calm, strict=True)]
    parts = (
        (False, False, poly_mul(pool_calm, stress_calm)),
        (False, True, poly_mul(pool_one, stress_calm)),
        (True, True, poly_mul(pool_all, stress_one)),
    )
    classes: dict[tuple[int, bool], dict[bool, int]] = {}
    for panic, one, ways_by_sixes in parts:
        for sixes, ways in enumerate(ways_by_sixes):
            if ways:
                classes.setdefault((sixes, panic), {})[one] = ways
    return classes


def stand_in(pool: list[int], stress: list[int], sixes: int, panic: bool) -> dict[int, int]:
    """One face per rerolled die standing for a class: its sixes on the pool dice first,
    then on the stress dice, and a stress die's 1 for a Panic; blanks elsewhere."""
    on_pool = min(sixes, len(pool))
    faces = [6] * on_pool + [BLANK] * (len(pool) - on_pool)
    on_stress = [6] * (sixes - on_pool) + [1] * int(panic)
    on_stress += [BLANK] * (len(stress) - len(on_stress))
    return dict(zip([*pool, *stress], [*faces, *on_stress], strict=True))

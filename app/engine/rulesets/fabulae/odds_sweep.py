"""The classes of a pushed roll's rerolled dice swept by their sixes (FAB-31; issue 21): a
roll of n dice has n + 1 classes, but what its rules decide moves by steps: within one
outcome, each six adds at most one Prouesse, one net six, one damage (FAB-11, FAB-36,
FAB-66), or nothing (a danger's damage, a power's malus, FAB-73, FAB-102).

So the classes are replayed at the ends of a run of sixes, and the run is read from its
ends when they agree: the same outcome, the same fresh dice's ways, every value equal, and
each value that may count the sixes (`per_six`) equal or apart by exactly the run's length.
The rules read each of those values as monotone in the sixes, moving by at most one a six:
apart by the whole run, it moved by one at every six; equal at both ends, it never moved.
Otherwise the run is halved and each half swept the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

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

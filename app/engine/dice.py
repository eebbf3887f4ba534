"""Dice sources (FAIR-6..8): the seeded HMAC stream in service, a replay of recorded faces.

The rules draw every die from a `DiceSource`; the source records each draw as
`{"sides": S, "face": f}` in the order the rules consumed them (FAIR-8).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Protocol, TypedDict, TypeVar

from app.engine.errors import DiceError

WORD_BITS = 32
MAX_SIDES = 2**WORD_BITS
_SPACE = 1 << WORD_BITS


class Draw(TypedDict):
    sides: int
    face: int


class DiceSource(Protocol):
    """Where the rules take their dice from."""

    def roll(self, sides: int) -> int:
        """One die with `sides` faces: 1..sides."""
        ...

    @property
    def draws(self) -> list[Draw]:
        """Every die drawn so far, in order."""
        ...


def commitment(server_seed: bytes) -> str:
    """FAIR-1: lowercase hex SHA-256 of the 32 seed bytes."""
    return hashlib.sha256(server_seed).hexdigest()


def face_from_word(word: int, sides: int, bits: int = WORD_BITS) -> int | None:
    """FAIR-7: the face a `bits`-bit integer gives a die, or None when it must be rejected.

    Words at or above the largest multiple of `sides` are discarded, so every face has the
    same number of words mapping to it (no modulo bias).
    """
    space = 1 << bits
    if word < space - (space % sides):
        return 1 + word % sides
    return None


def check_sides(sides: int) -> None:
    if not 1 <= sides <= MAX_SIDES:
        raise DiceError(f"a die has 1..2^32 sides, got {sides}")


def stream_message(campaign_id: str, epoch: int, client_seed: str, nonce: int, block: int) -> bytes:
    """FAIR-6: the HMAC message of block k for the entry with nonce n."""
    return f"{campaign_id}:{epoch}:{client_seed}:{nonce}:{block}".encode()


_BLOCK_WORDS = struct.Struct(">8I")  # FAIR-6: a 32-byte block read as 8 big-endian u32
_SHA256_BLOCK = 64
_INNER_PAD = bytes(byte ^ 0x36 for byte in range(256))  # RFC 2104's ipad and opad, as
_OUTER_PAD = bytes(byte ^ 0x5C for byte in range(256))  # translation tables


class HmacSha256:
    """HMAC-SHA256 (RFC 2104) under one key, its padded inner and outer states hashed once.

    A roll takes one HMAC per eight dice and verification one per eight re-derived dice,
    each under a key used for thousands of messages: `hmac.digest` pads and hashes the key
    again on every call, three times the cost of copying the two states hashed here.
    """

    __slots__ = ("_inner", "_outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _SHA256_BLOCK:
            key = hashlib.sha256(key).digest()
        padded = key.ljust(_SHA256_BLOCK, b"\0")
        self._inner = hashlib.sha256(padded.translate(_INNER_PAD))
        self._outer = hashlib.sha256(padded.translate(_OUTER_PAD))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


class HmacDiceStream:
    """FAIR-6/7: the campaign's stream for one entry (nonce = the entry's seq)."""

    def __init__(
        self,
        server_seed: bytes,
        campaign_id: str,
        epoch: int,
        client_seed: str,
        nonce: int,
        key: HmacSha256 | None = None,
    ) -> None:
        """`key` is `HmacSha256(server_seed)` when the caller keeps one for many entries."""
        if len(server_seed) != 32:
            raise DiceError("a server seed is 32 bytes")
        self._key = key if key is not None else HmacSha256(server_seed)
        self._prefix = f"{campaign_id}:{epoch}:{client_seed}:{nonce}:"
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._position = 0
        self._draws: list[Draw] = []

    def _next_word(self) -> int:
        if self._position == len(self._words):
            message = f"{self._prefix}{self._block}".encode()
            self._words = _BLOCK_WORDS.unpack(self._key.digest(message))
            self._position = 0
            self._block += 1
        word = self._words[self._position]
        self._position += 1
        return word

    def roll(self, sides: int) -> int:
        check_sides(sides)
        while True:
            face = face_from_word(self._next_word(), sides)
            if face is not None:
                self._draws.append({"sides": sides, "face": face})
                return face

    @property
    def draws(self) -> list[Draw]:
        return list(self._draws)


class ReplayDice:
    """Hands back recorded draws in order; any divergence from the record fails loudly."""

    def __init__(self, recorded: Sequence[Draw]) -> None:
        self._recorded = list(recorded)
        self._position = 0

    def roll(self, sides: int) -> int:
        check_sides(sides)
        if self._position >= len(self._recorded):
            raise DiceError(
                f"the rules asked for die #{self._position + 1} (d{sides}) "
                f"but only {len(self._recorded)} were recorded"
            )
        draw = self._recorded[self._position]
        if draw["sides"] != sides:
            raise DiceError(
                f"die #{self._position + 1}: the rules asked for a d{sides}, "
                f"the record holds a d{draw['sides']}"
            )
        if not 1 <= draw["face"] <= sides:
            raise DiceError(
                f"die #{self._position + 1}: face {draw['face']} is impossible on a d{sides}"
            )
        self._position += 1
        return draw["face"]

    @property
    def draws(self) -> list[Draw]:
        return list(self._recorded[: self._position])

    def assert_consumed(self) -> None:
        """Every recorded die was used: nothing was drawn that the rules did not ask for."""
        if self._position != len(self._recorded):
            raise DiceError(
                f"{len(self._recorded)} dice were recorded but the rules used {self._position}"
            )


def stream_gives(
    key: HmacSha256,
    campaign_id: str,
    epoch: int,
    client_seed: str,
    nonce: int,
    draws: Sequence[Draw],
) -> bool:
    """Whether the stream under `key` gives these recorded draws' faces, in order (FAIR-6,
    FAIR-7): the words of `HmacDiceStream`, compared as they come, without recording draws
    (verification re-derives every die of a log). A draw without its sides or face raises
    KeyError, impossible sides DiceError."""
    prefix = f"{campaign_id}:{epoch}:{client_seed}:{nonce}:"
    words: tuple[int, ...] = ()
    position, block = 8, 0  # 8: no block derived yet
    for draw in draws:
        die = draw["sides"]
        if not 1 <= die <= MAX_SIDES:
            check_sides(die)  # raises, saying why
        limit = _SPACE - _SPACE % die  # FAIR-7: words at or past it are rejected
        while True:
            if position == 8:
                words = _BLOCK_WORDS.unpack(key.digest(f"{prefix}{block}".encode()))
                position, block = 0, block + 1
            word = words[position]
            position += 1
            if word < limit:
                break
        if 1 + word % die != draw["face"]:
            return False
    return True


class RollOffRow(Protocol):
    """An initiative row that may have to break a tie."""

    character_id: str
    rolloff: list[int]


RowT = TypeVar("RowT", bound=RollOffRow)


def roll_off(tied: list[RowT], dice: DiceSource, sides: int) -> list[RowT]:
    """Break a tie: each rolls one die, higher first; those still tied roll again.

    Every face is appended to the row's `rolloff`, so the order can be replayed.
    """
    if len(tied) == 1:
        return tied
    faces = {}
    for row in tied:
        face = dice.roll(sides)
        row.rolloff.append(face)
        faces[row.character_id] = face
    ordered: list[RowT] = []
    for face in sorted(set(faces.values()), reverse=True):
        ordered.extend(roll_off([r for r in tied if faces[r.character_id] == face], dice, sides))
    return ordered

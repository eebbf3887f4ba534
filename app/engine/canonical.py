"""Canonical JSON (FAIR-10, FAIR-11): RFC 8785 bytes of an entry, fast where that is safe.

`canonical_json` writes any value an entry may hold; `decoded_canonical_json` is
verification's shortcut for values read from JSON text by `decode_json`.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import orjson
import rfc8785

MAX_SAFE_INTEGER = 2**53 - 1
PLAIN, HAS_FLOAT, _NEEDS_REFERENCE = 0, 1, 2


def scan_json(value: Any) -> int:
    """Classify a JSON value: plain (fast path), holding a float, or needing the reference.

    On plain values (str, bool, None, safe integers, lists, dicts with ASCII keys) RFC 8785
    is exactly `json.dumps` with sorted keys, no spaces and no ASCII escaping: keys sort the
    same in UTF-16 and in code points when they are ASCII, and both escape only `"`, `\\`
    and control characters, in lowercase hex.
    """
    status = PLAIN
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                status = _NEEDS_REFERENCE
        elif kind is dict:
            for key, child in item.items():
                if type(key) is not str or not key.isascii():
                    status = _NEEDS_REFERENCE
                stack.append(child)
        elif kind is list or kind is tuple:
            stack.extend(item)
        elif kind is float:
            return HAS_FLOAT
        else:
            status = _NEEDS_REFERENCE
    return status


# Built once: json.dumps with options builds a new encoder on every call.
_PLAIN_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _refuse(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON")


# The C encoder behind _PLAIN_ENCODER, built once too (JSONEncoder.encode builds one per call,
# a fifth of the encoding time of an entry). No circular check: entries are trees.
_MAKE_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
_C_ENCODER = (
    _MAKE_C_ENCODER(
        None, _refuse, json.encoder.encode_basestring, None, ":", ",", True, False, True
    )
    if _MAKE_C_ENCODER is not None
    else None
)


def _plain_dumps(value: Any) -> str:
    if _C_ENCODER is None:  # pragma: no cover (CPython always has the C encoder)
        return _PLAIN_ENCODER.encode(value)
    return "".join(_C_ENCODER(value, 0))


# On plain values orjson with sorted keys writes the same bytes as the plain encoder: the
# same escapes (only `"`, `\\` and control characters, lowercase hex) for every code point,
# keys in code-point order (the same as UTF-16's when they are ASCII), safe integers as is.
_ORJSON_OPTIONS = orjson.OPT_SORT_KEYS


def canonical_json(value: Any, scanned: int | None = None) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) bytes; `scanned` reuses a `scan_json` result."""
    if (scan_json(value) if scanned is None else scanned) == PLAIN:
        try:
            return orjson.dumps(value, option=_ORJSON_OPTIONS)
        except orjson.JSONEncodeError:  # a lone surrogate, nesting deeper than orjson goes
            pass
        try:
            return _plain_dumps(value).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: let the reference refuse it
            pass
    return rfc8785.dumps(value)


# Verification's path (FAIR-11) for content decoded from JSON text, where no value is of a
# type JSON lacks and none is NaN or infinite (`decode_json` refuses them): orjson writes it,
# refusing integers past ±(2^53 − 1), and a few searches of its bytes replace walking the
# content. orjson writes a float with a `.` or an exponent sign, so a float is one of those
# outside a string: behind an even number of quotes, when no string holds an escape. Keys
# sort as RFC 8785 wants (UTF-16 code units) when no character lies past U+FFFF. Anything
# else (an escape, a 4-byte UTF-8 sequence) goes to the full walk, which decides.
# The passthrough options make orjson refuse, rather than write, dates, dataclasses and
# subclasses of str, int, dict and list, which no JSON text decodes to.
_DECODED_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_STRICT_INTEGER
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
# What marks a float in orjson's bytes, outside strings: its `.` or its exponent's sign
# (orjson writes `1e+20` and `1e-7`, never `E`). Outside strings JSON has a `+` nowhere
# else and an `e-` nowhere else (`true` and `false` end before `,`, `]` or `}`).
_FLOAT_MARKS = (b".", b"+", b"e-")
# orjson before 3.11.7 wrote `1e16`, with no mark: with such an orjson (pyproject.toml asks
# for a later one) the decoded path steps aside and the full walk decides.
_MARKS_HOLD = orjson.dumps(1e16) == b"1e+16" and orjson.dumps(1e-7) == b"1e-7"
_PAST_BMP = re.compile(rb"[\xf0-\xf4]")


def _holds_float(body: bytes) -> bool:
    """Whether orjson's bytes of an escape-free value hold a float: one of its marks found
    outside strings, behind an even number of quotes. Each search is one C call, and each
    hit counts the quotes since the one before."""
    for mark in _FLOAT_MARKS:
        quotes = counted = 0  # the quotes before `counted`
        at = body.find(mark)
        while at != -1:
            quotes += body.count(b'"', counted, at)
            counted = at
            if quotes % 2 == 0:
                return True
            at = body.find(mark, at + 1)
    return False


def decoded_canonical_json(value: Any) -> bytes | None:
    """RFC 8785 bytes of a value decoded from JSON text by `decode_json`, or None when the
    full walk must decide (a float, an unsafe integer, an escape, a character past U+FFFF)."""
    if not _MARKS_HOLD:
        return None
    try:
        body = orjson.dumps(value, option=_DECODED_OPTIONS)
    except orjson.JSONEncodeError:
        return None
    if 92 in body or _holds_float(body):  # 92: a backslash, an escape
        return None
    if not body.isascii() and _PAST_BMP.search(body):
        return None
    return body


class NonFinite:
    """A NaN or infinite number read from JSON text: no JSON value, so no canonical form."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _finite(text: str) -> float | NonFinite:
    number = float(text)
    return number if math.isfinite(number) else NonFinite(text)


def decode_json(text: str | bytes) -> Any:
    """JSON text as verification reads it: orjson, or where orjson refuses (NaN, Infinity, a
    number past a double, a lone surrogate) the standard parser, each non-finite number a
    `NonFinite` that fails the entry holding it instead of passing for null (orjson writes
    NaN as null)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text, parse_constant=NonFinite, parse_float=_finite)


def json_may_contain(value: Any, marker: bytes) -> bool:
    """Whether orjson's JSON of `value` contains `marker`, a key or a key and its value as
    orjson writes them (`"$commit":`): text inside a string cannot show it, its quotes being
    escaped. True where orjson cannot write the value: the caller's walk then decides. One
    search in C that spares most values a walk in Python."""
    try:
        return marker in orjson.dumps(value)
    except orjson.JSONEncodeError:  # a key that is no string, nesting past orjson's limit
        return True


def find_float(value: Any) -> bool:
    """FAIR-10: entries hold integers, strings, booleans, null, lists and objects only."""
    return scan_json(value) == HAS_FLOAT

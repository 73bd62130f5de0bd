"""Bounded answers: a long list is cut into pages that fit a size, with an opaque cursor.

A cursor is the base64 of ``{"q": the call's digest, "at": the next item}``: it says where
the next page starts and which question it belongs to, so a cursor given to another call
(another tool, report or filter) is refused instead of paging the wrong list.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from kernelscope.core.errors import ReportError

PAGE_BYTES = 12_000
"""What the items of one page may take as JSON (the answer's other members come on top)."""
MOST_ITEMS = 100
"""A page never holds more items than this, however small they are."""


def digest(tool: str, arguments: Mapping[str, Any]) -> str:
    """A short fingerprint of one question (the tool and its arguments but the cursor)."""
    asked = {k: v for k, v in sorted(arguments.items()) if k != "cursor"}
    text = json.dumps([tool, asked], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def encode_cursor(question: str, at: int) -> str:
    text = json.dumps({"q": question, "at": at}, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode()


def decode_cursor(cursor: str | None, question: str) -> int:
    """Where the page that ``cursor`` names starts (0 without one); ReportError, one
    sentence, for a cursor that is not one of this question's."""
    if not cursor:
        return 0
    try:
        found = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        at = found["at"]
        ours = found["q"] == question
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeError) as exc:
        raise ReportError("The cursor is not one this server gave; call without it.") from exc
    if not ours or not isinstance(at, int) or at < 0:
        raise ReportError(
            "The cursor belongs to another question (another tool, report or argument); "
            "call without it, or with the cursor that answer gave."
        )
    return at


def page(items: Sequence[Any], start: int, question: str, *, budget: int = PAGE_BYTES
         ) -> tuple[list[Any], dict[str, Any]]:
    """The items from ``start`` that fit ``budget`` bytes of JSON (at least one, at most
    ``MOST_ITEMS``) and the page's description: ``total``, ``start``, ``count`` and
    ``next_cursor`` (None on the last page)."""
    taken: list[Any] = []
    used = 0
    for item in items[start:start + MOST_ITEMS]:
        size = len(json.dumps(item, default=str)) + 2
        if taken and used + size > budget:
            break
        taken.append(item)
        used += size
    end = start + len(taken)
    return taken, {
        "total": len(items),
        "start": start,
        "count": len(taken),
        "next_cursor": encode_cursor(question, end) if end < len(items) else None,
    }

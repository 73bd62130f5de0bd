"""Make values JSON-safe: NaN and infinities become null; an object's attributes as a
document's members."""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """Return ``value`` with every non-finite float replaced by None (recursively)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def attributes(obj: object, *names: str) -> dict[str, Any]:
    """``{name: obj.name}`` for each of ``names``, in their order: the members of a JSON
    document that are an object's attributes under their own names."""
    return {name: getattr(obj, name) for name in names}

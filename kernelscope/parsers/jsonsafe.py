"""Make values JSON-safe: NaN and infinities become null."""

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

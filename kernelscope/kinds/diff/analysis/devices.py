"""The GPUs the two sides of a diff ran on, and whether they differ.

A diff across two GPUs (another name, SM count, SM clock or memory clock) compares the
devices as much as the code: the headline and every speedup say so (``Devices.sentence``),
and the JSON carries ``devices`` (``same``, ``differ_in``, each side's device).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CLOCK = "device__attribute_clock_rate"
"""The SM clock in kHz, as Nsight Compute records the device's attributes."""
MEMORY_CLOCK = "device__attribute_memory_clock_rate"


@dataclass(frozen=True)
class Device:
    """One side's GPU (None: what the report does not record)."""

    name: str
    sm_count: int | None = None
    clock_khz: float | None = None
    memory_clock_khz: float | None = None

    def text(self) -> str:
        """``NVIDIA GH200 480GB (132 SMs, 1.98 GHz)``."""
        more = []
        if self.sm_count is not None:
            more.append(f"{self.sm_count} SMs")
        if self.clock_khz is not None:
            more.append(f"{self.clock_khz / 1e6:.2f} GHz")
        return f"{self.name or 'an unnamed GPU'}" + (f" ({', '.join(more)})" if more else "")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "sm_count": self.sm_count, "clock_khz": self.clock_khz,
                "memory_clock_khz": self.memory_clock_khz}


def device_from(name: str, sm_count: int | None, attributes: Mapping[str, object]) -> Device:
    """A device from a kernel report's device (its name, SM count and attributes)."""
    return Device(name, sm_count, _number(attributes.get(CLOCK)),
                  _number(attributes.get(MEMORY_CLOCK)))


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


@dataclass(frozen=True)
class Devices:
    """The GPUs of both sides (several for a timeline that used several: its first)."""

    before: tuple[Device, ...]
    after: tuple[Device, ...]

    @property
    def differ_in(self) -> tuple[str, ...]:
        """What differs: ``name``, ``SM count``, ``clock``, ``memory clock`` (a reading one
        side lacks is not a difference); ``GPUs`` when the sides used different numbers."""
        if len(self.before) != len(self.after):
            return ("GPUs",)
        out: list[str] = []
        for old, new in zip(self.before, self.after, strict=True):
            for label, a, b in (("name", old.name, new.name),
                                ("SM count", old.sm_count, new.sm_count),
                                ("clock", old.clock_khz, new.clock_khz),
                                ("memory clock", old.memory_clock_khz,
                                 new.memory_clock_khz)):
                if a is not None and b is not None and a != b and label not in out:
                    out.append(label)
        return tuple(out)

    @property
    def same(self) -> bool:
        return not self.differ_in

    @property
    def sentence(self) -> str | None:
        """``Different GPUs (name, SM count, clock): before … , after …; speedups compare
        the GPUs as well as the code.``; None when they are the same."""
        if self.same:
            return None
        return (f"Different GPUs ({', '.join(self.differ_in)}): before on "
                f"{_all(self.before)}, after on {_all(self.after)}; speedups compare the GPUs "
                "as well as the code.")

    def to_dict(self) -> dict[str, Any]:
        return {"same": self.same, "differ_in": list(self.differ_in),
                "before": [d.to_dict() for d in self.before],
                "after": [d.to_dict() for d in self.after]}


def _all(devices: tuple[Device, ...]) -> str:
    return " and ".join(d.text() for d in devices) or "no recorded GPU"


CROSS_DEVICE = "across GPUs"
"""What a speedup between two different GPUs is labelled with."""

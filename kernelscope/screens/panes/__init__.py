"""The kernel-detail panes, one module each, in the diagnosis order of ``PANES``."""

from kernelscope.parsers.ncu.panes import PANES
from kernelscope.screens.panes.base import Pane
from kernelscope.screens.panes.diagnosis import DiagnosisPane
from kernelscope.screens.panes.launch import LaunchPane
from kernelscope.screens.panes.memory import MemoryPane
from kernelscope.screens.panes.occupancy import OccupancyPane
from kernelscope.screens.panes.raw import MetricsNeeded, RawPane
from kernelscope.screens.panes.rules import RulesPane
from kernelscope.screens.panes.sol import SolPane
from kernelscope.screens.panes.source import SourceNeeded, SourcePane
from kernelscope.screens.panes.stalls import StallsPane

_PANES_BY_ID: dict[str, type[Pane]] = {
    pane.spec.id: pane
    for pane in (
        DiagnosisPane, LaunchPane, SolPane, OccupancyPane, MemoryPane, StallsPane, SourcePane,
        RulesPane, RawPane,
    )
}
PANE_TYPES: tuple[type[Pane], ...] = tuple(_PANES_BY_ID[spec.id] for spec in PANES)
"""The panes in the order of ``kernelscope.parsers.ncu.panes.PANES`` (keys 0–8), the one list
that orders them; a spec without a pane type fails here, at import."""

__all__ = [
    "PANE_TYPES",
    "DiagnosisPane",
    "LaunchPane",
    "MemoryPane",
    "MetricsNeeded",
    "OccupancyPane",
    "Pane",
    "RawPane",
    "RulesPane",
    "SolPane",
    "SourceNeeded",
    "SourcePane",
    "StallsPane",
]

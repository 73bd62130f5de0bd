"""The kernel-detail panes, one module each, in the diagnosis order of ``PANES``."""

from kernelscope.kinds.ncu.model.panes import PANES
from kernelscope.kinds.ncu.screens.panes.base import Pane
from kernelscope.kinds.ncu.screens.panes.diagnosis import DiagnosisPane
from kernelscope.kinds.ncu.screens.panes.launch import LaunchPane
from kernelscope.kinds.ncu.screens.panes.memory import MemoryPane
from kernelscope.kinds.ncu.screens.panes.occupancy import OccupancyPane
from kernelscope.kinds.ncu.screens.panes.raw import MetricsNeeded, RawPane
from kernelscope.kinds.ncu.screens.panes.rules import RulesPane
from kernelscope.kinds.ncu.screens.panes.sol import SolPane
from kernelscope.kinds.ncu.screens.panes.source import SourceNeeded, SourcePane
from kernelscope.kinds.ncu.screens.panes.stalls import StallsPane

_PANES_BY_ID: dict[str, type[Pane]] = {
    pane.spec.id: pane
    for pane in (
        DiagnosisPane, LaunchPane, SolPane, OccupancyPane, MemoryPane, StallsPane, SourcePane,
        RulesPane, RawPane,
    )
}
PANE_TYPES: tuple[type[Pane], ...] = tuple(_PANES_BY_ID[spec.id] for spec in PANES)
"""The panes in the order of ``kernelscope.kinds.ncu.model.panes.PANES`` (keys 0–8), the one list
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

"""The collector's thresholds while a report loads (``kernelscope.ui.collection``)."""

from __future__ import annotations

import gc

import pytest

from kernelscope.ui.collection import FULL_AFTER, YOUNG_THRESHOLD, fewer_collections


def test_thresholds_are_raised_while_loading_and_restored_after() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        young, middle, full = gc.get_threshold()
        assert young >= YOUNG_THRESHOLD and full >= FULL_AFTER and middle == before[1]
        with fewer_collections():  # a second load meanwhile
            assert gc.get_threshold() == (young, middle, full)
        assert gc.get_threshold() == (young, middle, full)  # the first load goes on
    assert gc.get_threshold() == before


def test_a_failed_load_restores_the_thresholds() -> None:
    before = gc.get_threshold()
    with pytest.raises(ValueError, match="bad report"), fewer_collections():
        raise ValueError("bad report")
    assert gc.get_threshold() == before

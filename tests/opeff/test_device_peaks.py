"""The device peaks table: the names traces record find their product, every entry names its
source, and the rates are the datasheets' dense ones."""

from __future__ import annotations

import re

import pytest

from kernelscope.core.device_peaks import DTYPES, PEAKS, normalise, peaks_for


@pytest.mark.parametrize(("recorded", "product"), [
    ("NVIDIA H200", "H200 SXM"),
    ("NVIDIA H100 80GB HBM3", "H100 SXM"),
    ("NVIDIA H100 NVL", "H100 NVL"),
    ("NVIDIA H100 PCIe", "H100 PCIe"),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM 80GB"),
    ("NVIDIA A100-SXM4-40GB", "A100 40GB (SXM or PCIe)"),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB"),
    ("Tesla V100-SXM2-16GB", "V100 SXM2"),
    ("Tesla V100-PCIE-32GB", "V100 PCIe"),
    ("Tesla T4", "T4"),
    ("NVIDIA L4", "L4"),
    ("NVIDIA L40S", "L40S"),
    ("NVIDIA GeForce RTX 4090", "GeForce RTX 4090"),
    ("NVIDIA GeForce RTX 3090", "GeForce RTX 3090"),
    ("NVIDIA GeForce RTX 5090", "GeForce RTX 5090"),
    ("NVIDIA B200", "B200"),
    ("NVIDIA A10", "A10"),
    ("NVIDIA H800", "H800 SXM"),
])
def test_recorded_names_find_their_product(recorded: str, product: str) -> None:
    entry = peaks_for(recorded)
    assert entry is not None and entry.product == product


def test_unknown_devices_have_no_entry() -> None:
    # A10G is AWS's part (no NVIDIA datasheet): not taken for the A10
    assert peaks_for("NVIDIA A10G") is None
    assert peaks_for("") is None and peaks_for(None) is None


def test_every_entry_names_a_source_with_a_year_and_known_dtypes() -> None:
    for entry in PEAKS:
        assert re.search(r"\((19|20)\d\d\)", entry.source), entry.product
        assert set(entry.tflops) <= set(DTYPES) and entry.memory_gbps > 0
        # tensor rates are dense: FP16 and BF16 equal where both are listed, FP8 twice them
        if "bf16" in entry.tflops:
            assert entry.tflops["bf16"] == entry.tflops["fp16"]
        if "fp8" in entry.tflops:
            assert entry.tflops["fp8"] == pytest.approx(2 * entry.tflops["fp16"], rel=0.01)


def test_h100_sxm_dense_rates_and_ridge() -> None:
    entry = peaks_for("NVIDIA H100 80GB HBM3")
    assert entry is not None
    assert entry.peak_tflops("bf16") == 989.5  # 1,979 with sparsity, halved
    assert entry.peak_tflops("fp32") == 67
    assert entry.ridge("bf16") == pytest.approx(989.5e12 / 3350e9)
    assert normalise("NVIDIA A100-SXM4-80GB") == "nvidia a100 sxm4 80gb"

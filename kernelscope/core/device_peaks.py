"""The peak rates of NVIDIA GPUs from their datasheets and whitepapers, one entry per product,
keyed by the device name a trace records (Kineto's ``deviceProperties[].name``, the name in
Nsight Systems' ``TARGET_INFO_GPU``).

Every rate is **dense** (the datasheets' figures "with sparsity" halved) and in TFLOP/s (TOP/s
for ``int8``); memory bandwidth in GB/s (10^9 bytes/s). Keys of ``tflops``:

- ``fp64``, ``fp32``: the CUDA cores (not the FP64 tensor cores);
- ``tf32``, ``fp16``, ``bf16``, ``fp8``, ``int8``: the tensor cores, dense. On GeForce cards
  the tensor cores run at half rate when they accumulate in FP32, which is what PyTorch's
  FP16/BF16/FP8 matrix products do; those entries hold the FP32-accumulate rate.

A rate a product does not have (V100 has no BF16, T4 no TF32) is absent, never zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

DTYPES = ("fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8")
"""The rates a product may list, in this order."""


@dataclass(frozen=True)
class DevicePeaks:
    """One product's peak rates (dense) and where they come from."""

    product: str
    pattern: str
    """A regular expression on the normalised device name (see :func:`normalise`)."""
    tflops: Mapping[str, float]
    memory_gbps: float
    source: str
    measured: frozenset[str] = frozenset()
    """The rates a kernel report measured rather than a datasheet gives (dtypes of
    :data:`DTYPES`, ``memory``); empty for a table entry (``kinds/join/analysis/
    measured_peaks.py`` builds the measured ones)."""

    def peak_tflops(self, dtype: str) -> float | None:
        """The peak of ``dtype`` (a key of :data:`DTYPES`), or None when it has none."""
        return self.tflops.get(dtype)

    def ridge(self, dtype: str) -> float | None:
        """The ridge point of ``dtype``'s roofline: FLOP per byte at which the peak rate and
        the memory bandwidth meet."""
        peak = self.peak_tflops(dtype)
        return None if peak is None else peak * 1e12 / (self.memory_gbps * 1e9)


def _entry(product: str, pattern: str, memory_gbps: float, source: str,
           **tflops: float) -> DevicePeaks:
    unknown = set(tflops) - set(DTYPES)
    if unknown:
        raise ValueError(f"unknown dtype {sorted(unknown)}")
    return DevicePeaks(product, pattern, MappingProxyType(dict(tflops)), memory_gbps, source)


_HOPPER = "NVIDIA H100 Tensor Core GPU datasheet (2023)"
_H200 = "NVIDIA H200 Tensor Core GPU datasheet (2024)"
_A100 = "NVIDIA A100 Tensor Core GPU datasheet (2021)"
_ADA = "NVIDIA Ada Lovelace GPU architecture whitepaper v1.1 (2023)"
_GA102 = "NVIDIA Ampere GA102 GPU architecture whitepaper v2.1 (2021)"
_RTX_BW = "NVIDIA RTX Blackwell GPU architecture whitepaper v1.0 (2025)"

PEAKS: tuple[DevicePeaks, ...] = (
    # Hopper. Order matters: the first pattern that matches wins (GH200 before H200, NVL and
    # PCIe before the plain SXM name).
    _entry("GH200 (96 GB HBM3)", r"\bgh200\b", 4000, "NVIDIA GH200 Grace Hopper Superchip "
           "datasheet (2023)", fp64=34, fp32=67, tf32=494.5, fp16=989.5, bf16=989.5,
           fp8=1979, int8=1979),
    _entry("H200 NVL", r"\bh200\b.*\bnvl\b", 4800, _H200, fp64=30, fp32=60, tf32=417.5,
           fp16=835.5, bf16=835.5, fp8=1670.5, int8=1670.5),
    _entry("H200 SXM", r"\bh200\b", 4800, _H200, fp64=34, fp32=67, tf32=494.5, fp16=989.5,
           bf16=989.5, fp8=1979, int8=1979),
    _entry("H100 NVL", r"\bh100\b.*\bnvl\b", 3900, _HOPPER, fp64=30, fp32=60, tf32=417.5,
           fp16=835.5, bf16=835.5, fp8=1670.5, int8=1670.5),
    _entry("H100 PCIe", r"\bh100\b.*\bpcie\b", 2000, _HOPPER, fp64=26, fp32=51, tf32=378,
           fp16=756, bf16=756, fp8=1513, int8=1513),
    _entry("H100 SXM", r"\bh100\b", 3350, _HOPPER, fp64=34, fp32=67, tf32=494.5, fp16=989.5,
           bf16=989.5, fp8=1979, int8=1979),
    _entry("H800 PCIe", r"\bh800\b.*\bpcie\b", 2000, "NVIDIA H800 PCIe datasheet (2023)",
           fp64=0.8, fp32=51, tf32=378, fp16=756, bf16=756, fp8=1513, int8=1513),
    _entry("H800 SXM", r"\bh800\b", 3350, "NVIDIA H800 Tensor Core GPU datasheet (2023)",
           fp64=1, fp32=67, tf32=494.5, fp16=989.5, bf16=989.5, fp8=1979, int8=1979),
    # Blackwell (data centre): HGX B200 at 1,000 W.
    _entry("B200", r"\bb200\b", 8000, "NVIDIA Blackwell architecture technical brief (2024), "
           "HGX B200", fp64=40, fp32=80, tf32=1100, fp16=2250, bf16=2250, fp8=4500, int8=4500),
    # Ampere (data centre).
    _entry("A100 PCIe 80GB", r"\ba100\b.*(\b80 ?gb\b.*\bpcie\b|\bpcie\b.*\b80 ?gb\b)", 1935,
           _A100, fp64=9.7, fp32=19.5, tf32=156, fp16=312, bf16=312, int8=624),
    _entry("A100 SXM 80GB", r"\ba100\b.*\b80 ?gb\b", 2039, _A100, fp64=9.7, fp32=19.5,
           tf32=156, fp16=312, bf16=312, int8=624),
    _entry("A100 40GB (SXM or PCIe)", r"\ba100\b", 1555, _A100, fp64=9.7, fp32=19.5,
           tf32=156, fp16=312, bf16=312, int8=624),
    _entry("A40", r"\ba40\b", 696, "NVIDIA A40 datasheet (2021)", fp64=0.58, fp32=37.4,
           tf32=74.8, fp16=149.7, bf16=149.7, int8=299.3),
    _entry("A10", r"\ba10\b", 600, "NVIDIA A10 Tensor Core GPU datasheet (2021)",
           fp32=31.2, tf32=62.5, fp16=125, bf16=125, int8=250),
    # Ada (data centre, workstation).
    _entry("L40S", r"\bl40s\b", 864, "NVIDIA L40S GPU datasheet (2023)", fp32=91.6,
           tf32=183, fp16=366, bf16=366, fp8=733, int8=733),
    _entry("L40", r"\bl40\b", 864, "NVIDIA L40 GPU datasheet (2022)", fp32=90.5, tf32=90.5,
           fp16=181, bf16=181, fp8=362, int8=362),
    _entry("L4", r"\bl4\b", 300, "NVIDIA L4 Tensor Core GPU datasheet (2023)", fp32=30.3,
           tf32=60, fp16=121, bf16=121, fp8=242.5, int8=242.5),
    _entry("RTX 6000 Ada", r"\brtx 6000 ada\b", 960, "NVIDIA RTX 6000 Ada Generation "
           "datasheet (2022)", fp32=91.1, tf32=182.1, fp16=364.2, bf16=364.2, fp8=728.5,
           int8=728.5),
    _entry("RTX A6000", r"\brtx a6000\b", 768, "NVIDIA RTX A6000 datasheet (2021)",
           fp32=38.7, tf32=77.4, fp16=154.8, bf16=154.8, int8=309.7),
    # GeForce (tensor rates with FP32 accumulation, see the module docstring).
    _entry("GeForce RTX 5090", r"\brtx 5090\b", 1792, _RTX_BW, fp32=104.8, tf32=104.8,
           fp16=209.5, bf16=209.5, fp8=419, int8=838),
    _entry("GeForce RTX 4090", r"\brtx 4090\b", 1008, _ADA, fp32=82.6, tf32=82.6,
           fp16=165.2, bf16=165.2, fp8=330.3, int8=660.6),
    _entry("GeForce RTX 4080", r"\brtx 4080\b", 716.8, _ADA, fp32=48.7, tf32=48.7,
           fp16=97.5, bf16=97.5, fp8=194.9, int8=389.9),
    _entry("GeForce RTX 3090", r"\brtx 3090\b", 936, _GA102, fp32=35.6, tf32=35.6,
           fp16=71, bf16=71, int8=284),
    _entry("GeForce RTX 3080", r"\brtx 3080\b", 760, _GA102, fp32=29.8, tf32=29.8,
           fp16=59.5, bf16=59.5, int8=238),
    # Turing and Volta.
    _entry("T4", r"\bt4\b", 320, "NVIDIA T4 Tensor Core GPU datasheet (2019)", fp32=8.1,
           fp16=65, int8=130),
    _entry("V100S PCIe", r"\bv100s\b", 1134, "NVIDIA V100 Tensor Core GPU datasheet (2020)",
           fp64=8.2, fp32=16.4, fp16=130),
    _entry("V100 PCIe", r"\bv100\b.*\bpcie\b", 900, "NVIDIA V100 Tensor Core GPU datasheet "
           "(2020)", fp64=7, fp32=14, fp16=112),
    _entry("V100 SXM2", r"\bv100\b", 900, "NVIDIA V100 Tensor Core GPU datasheet (2020)",
           fp64=7.8, fp32=15.7, fp16=125),
)


def normalise(device_name: str) -> str:
    """``device_name`` in lower case, with ``-`` and ``_`` read as spaces and runs of spaces
    made one: ``NVIDIA A100-SXM4-80GB`` is ``nvidia a100 sxm4 80gb``."""
    return " ".join(re.sub(r"[-_]", " ", device_name).lower().split())


def peaks_for(device_name: str | None) -> DevicePeaks | None:
    """The table's entry for ``device_name``, or None for a device it does not hold."""
    if not device_name:
        return None
    name = normalise(device_name)
    for entry in PEAKS:
        if re.search(entry.pattern, name):
            return entry
    return None

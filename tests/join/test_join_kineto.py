"""A PyTorch profiler (Kineto) trace joined with kernel reports of the same program.

Kineto records no mangled name and spells the demangled one as GNU's ``abi::__cxa_demangle``
does (``{lambda(float)#1}``, ``std::array<char*, 3ul>``, parameter types written out), Nsight
Compute as its own demangler does (``[lambda(float) (instance 1)]``, ``std::array<char *, 3>``,
``(int, T2, T3)``): before ``names.template_key`` only the kernels without template arguments
matched (14 of the GEMM sweep's 44 launches, 4 of the attention step's 22). The traces and
reports are ``samples/opeff`` (``samples/README.md``); the oracle is ``ncu --page raw``'s CSV
beside them and the Nsight Systems trace of the same sweep, whose mangled names match exactly.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import lzma
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from kernelscope.export.writer import ExportOptions, render
from kernelscope.kinds.join.analysis.matching import (
    BY_TEMPLATE,
    ProfiledLaunch,
    match_launches,
)
from kernelscope.kinds.join.analysis.model import profiled_launches
from kernelscope.kinds.join.analysis.names import template_key
from kernelscope.kinds.join.analysis.opener import JoinInputs, open_join
from kernelscope.kinds.join.analysis.timeline_families import TimelineKernels, timeline_families
from kernelscope.kinds.ncu.model.report import NcuReport
from tests.conftest import SAMPLES, read_csv_xz
from tests.wild.conftest import require_wild, wild_files

OPEFF = SAMPLES / "opeff"
PAIRS = [("gemm_sweep.pt.trace.json.xz", "opeff_gemm", 44),
         ("sdpa.pt.trace.json.xz", "opeff_sdpa", 22)]


def _oracle(report: str) -> dict[int, dict[str, str]]:
    header, _units, *rows = read_csv_xz(OPEFF / "oracle" / f"{report}.raw.csv.xz")
    return {int(row[0]): dict(zip(header, row, strict=True)) for row in rows}


def _function(kernel_name: str) -> str:
    """The function ncu's "Kernel Name" names: its last component before any template or
    parameter list (``void at::<unnamed>::cunn_SoftMaxForwardReg<…>(…)`` is
    ``cunn_SoftMaxForwardReg``)."""
    head = re.split(r"[<(]", kernel_name.replace("<unnamed>", ""), maxsplit=1)[0]
    return head.rsplit("::", 1)[-1].split()[-1]


@cache
def _join_doc(trace: str, report: str) -> dict:  # type: ignore[type-arg]
    return json.loads(render([OPEFF / trace, OPEFF / f"{report}.ncu-rep.xz"],
                             ExportOptions(fmt="json"), subcommand="join"))


def _paired(doc: dict) -> dict[int, dict]:  # type: ignore[type-arg]
    """Each profiled launch's row of the ranking, by its kernel ID."""
    return {kernel_id: item for item in doc["ranking"] if item["profiled"]
            for _, kernel_id in item["ncu_ids"]}


@pytest.mark.parametrize(("trace", "report", "launches"), PAIRS)
def test_every_launch_of_the_kernel_report_is_on_the_kineto_trace(
        trace: str, report: str, launches: int) -> None:
    doc = _join_doc(trace, report)
    oracle = _oracle(report)
    assert len(oracle) == launches
    assert doc["kernels_matched"] == launches and doc["unmatched_kernels"] == []
    events = {e["name"] for e in json.loads(lzma.decompress((OPEFF / trace).read_bytes()))[
        "traceEvents"] if e.get("cat") == "kernel"}
    paired = _paired(doc)
    assert sorted(paired) == sorted(oracle)
    for kernel_id, item in paired.items():
        name = item["family"]
        assert name in events  # the trace's own name, as Kineto wrote it
        # the function ncu names (its "Kernel Name") is the one Kineto's name calls
        function = re.escape(_function(oracle[kernel_id]["Kernel Name"]))
        assert re.search(rf"(?:^|[\s:]){function}(?:<|\(|$)", name), (kernel_id, name)
        assert item["matched_by"].endswith("grid × block")
    by_template = [item for item in paired.values() if item["matched_by"].startswith(BY_TEMPLATE)]
    assert by_template and all("<" in item["family"] for item in by_template)


def test_the_kineto_trace_pairs_each_launch_as_the_nsys_trace_of_the_same_sweep(
        tmp_path: Path) -> None:
    """The Nsight Systems trace of the sweep matches every launch by its mangled name: the
    Kineto trace's pairing names the same function and template instance, of the same shape."""
    sqlite = tmp_path / "gemm_sweep_nvtx.sqlite"
    sqlite.write_bytes(lzma.decompress((OPEFF / "gemm_sweep_nvtx.sqlite.xz").read_bytes()))
    nsys = _paired(json.loads(render([sqlite, OPEFF / "opeff_gemm.ncu-rep.xz"],
                                     ExportOptions(fmt="json"), subcommand="join")))
    kineto = _paired(_join_doc("gemm_sweep.pt.trace.json.xz", "opeff_gemm"))
    assert sorted(nsys) == sorted(kineto) and len(nsys) == 44
    assert all(item["matched_by"].startswith("mangled name") or "<" not in item["family"]
               for item in nsys.values())
    for kernel_id, item in kineto.items():
        assert template_key(item["family"]) == template_key(nsys[kernel_id]["family"])
        assert (item["grid"], item["block"]) == (nsys[kernel_id]["grid"],
                                                 nsys[kernel_id]["block"])


@pytest.fixture(scope="module")
def sweep() -> Iterator[JoinInputs]:
    inputs = open_join([OPEFF / "gemm_sweep.pt.trace.json.xz", OPEFF / "opeff_gemm.ncu-rep.xz"])
    yield inputs
    inputs.close()


def _fill(launches: list[ProfiledLaunch]) -> list[ProfiledLaunch]:
    return [la for la in launches if "FillFunctor" in la.demangled]


def test_a_key_two_profiled_kernels_share_matches_neither(sweep: JoinInputs) -> None:
    """An overload (another mangled name, another parameter list) beside a profiled kernel:
    its function and template arguments no longer say which kernel is on the timeline."""
    launches = profiled_launches(0, sweep.kernel_reports[0])
    fill = _fill(launches)
    assert len(fill) == 2
    overload = replace(fill[0], kernel_id=1000, mangled=fill[0].mangled + "l",
                       demangled=fill[0].demangled.replace("(int,", "(long,"))
    kernels = timeline_families(sweep.timeline.report)
    matches = match_launches([*launches, overload], kernels)
    refused = {u.launch.kernel_id: u.reason for u in matches.unmatched}
    assert refused == dict.fromkeys(
        [*(la.kernel_id for la in fill), 1000],
        "2 profiled kernels share its function and template arguments")
    assert len(matches.matched) == len(launches) - 2


def test_a_key_two_timeline_kernels_share_matches_neither(sweep: JoinInputs) -> None:
    kernels = timeline_families(sweep.timeline.report)
    family = next(f for f in kernels.families if "FillFunctor" in f.name)
    other = replace(family, index=len(kernels.families),
                    name=family.name.replace("(int,", "(long,"))
    twice = TimelineKernels((*kernels.families, other), kernels.total_ns, kernels.shortest_ns)
    launches = profiled_launches(0, sweep.kernel_reports[0])
    matches = match_launches(launches, twice)
    assert {u.launch.kernel_id: u.reason for u in matches.unmatched} == dict.fromkeys(
        [la.kernel_id for la in _fill(launches)],
        "its function and template arguments fit 2 kernels of the timeline (they differ in "
        "their parameters)")
    assert len(matches.matched) == len(launches) - 2


def test_a_name_kineto_left_mangled_matches_by_the_mangled_name(sweep: JoinInputs) -> None:
    """Kineto writes the mangled name where the symbol is over 1,024 characters or does not
    demangle (``libkineto/src/Demangle.cpp``); the trace's reader keeps it as the mangled name
    too, so the launch matches it exactly."""
    launches = profiled_launches(0, sweep.kernel_reports[0])
    fill = _fill(launches)
    kernels = timeline_families(sweep.timeline.report)
    family = next(f for f in kernels.families if "FillFunctor" in f.name)
    mangled = replace(family, name=fill[0].mangled, mangled=fill[0].mangled)
    as_kineto = TimelineKernels(tuple(mangled if f is family else f for f in kernels.families),
                                kernels.total_ns, kernels.shortest_ns)
    matches = match_launches(fill, as_kineto)
    assert not matches.unmatched
    assert {(m.family, m.by) for m in matches.matched} == {
        (family.index, "mangled name, grid × block")}


@cache
def _gnu_demangler() -> Callable[[str], str | None] | None:
    """libstdc++'s ``abi::__cxa_demangle``, the function Kineto names kernels with; None
    where the library is absent."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    demangle = lib.__cxa_demangle
    demangle.restype = ctypes.c_void_p
    demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                         ctypes.POINTER(ctypes.c_int)]
    libc.free.argtypes = [ctypes.c_void_p]

    def run(mangled: str) -> str | None:
        status = ctypes.c_int()
        found = demangle(mangled.encode(), None, None, ctypes.byref(status))
        if status.value != 0 or not found:
            return None
        text = ctypes.string_at(found).decode()
        libc.free(found)
        return text

    return run


def _reports() -> list[Path]:
    return sorted([*(SAMPLES / "ncu").glob("*.ncu-rep.xz"), *OPEFF.glob("*.ncu-rep.xz")])


def _require_gnu() -> Callable[[str], str | None]:
    gnu = _gnu_demangler()
    if gnu is None:
        pytest.skip("libstdc++'s __cxa_demangle (what Kineto names kernels with) is absent")
    return gnu


def _check_names(names: set[tuple[str, str]]) -> None:
    """For each (demangled, mangled) of one report: GNU's demangling of the mangled name (as
    a Kineto trace writes it) and the report's own share one key, and no two kernels
    (mangled names) share a key."""
    gnu = _require_gnu()
    keys: dict[str, set[str]] = {}
    for demangled, mangled in names:
        keys.setdefault(template_key(demangled), set()).add(mangled)
        spelled = gnu(mangled) if mangled.startswith("_Z") else None
        if spelled is not None:
            assert template_key(spelled) == template_key(demangled), mangled
    assert all(len(mangled) == 1 for mangled in keys.values())


def _ncu_names(path: Path) -> set[tuple[str, str]]:
    with NcuReport(path) as report:
        identities = [report.summary(i, rules=False).identity
                      for i in range(report.kernel_count)]
    return {(identity.name, identity.mangled) for identity in identities}


def _nsys_names(path: Path) -> set[tuple[str, str]]:
    """The kernels' (demangled, mangled) names of an ``nsys export --type sqlite`` file."""
    with sqlite3.connect(":memory:") as db:
        db.deserialize(lzma.decompress(path.read_bytes()))
        columns = {row[1] for row in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")}
        if "mangledName" not in columns:
            return set()
        return set(db.execute(
            "SELECT DISTINCT d.value, m.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
            "JOIN StringIds d ON d.id = k.demangledName JOIN StringIds m ON m.id = k.mangledName"))


@pytest.mark.parametrize("path", _reports(), ids=lambda p: p.name)
def test_both_demanglers_give_one_key_per_sample_kernel(path: Path) -> None:
    _check_names(_ncu_names(path))


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("**/*.sqlite.xz")), ids=lambda p: p.name)
def test_both_demanglers_give_one_key_per_sample_timeline_kernel(path: Path) -> None:
    _check_names(_nsys_names(path))


@pytest.mark.parametrize("kind", ["ncu", "nsys"])
def test_both_demanglers_give_one_key_per_wild_kernel(kind: str) -> None:
    """The third-party reports of ``../shared/wild`` (Nsight Compute 2019–2025, Nsight
    Systems, Kokkos, cuBLAS, thrust and PyTorch kernels)."""
    root = require_wild()
    for name in wild_files(kind):
        path = root / kind / name
        if kind == "nsys" and name.endswith(".sqlite.xz"):
            _check_names(_nsys_names(path))
        elif kind == "ncu":
            _check_names(_ncu_names(path))

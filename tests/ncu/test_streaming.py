"""What the reader keeps small for large reports (issue 25) answers as the whole thing does:
the streamed ``summary`` prints what the analysis of every kernel prints, the bulk metric read
gives what one read per name gives, and the compact result index hands out what the block
walk found. On real reports: our samples and a pre-2020 third-party one."""

from __future__ import annotations

import io
import lzma
from dataclasses import replace
from pathlib import Path

import pytest

from kernelscope.export.summary import make_console
from kernelscope.kinds.ncu.analysis.kernel_analysis import analyze, open_for_analysis
from kernelscope.kinds.ncu.analysis.summary_stream import stream_summary
from kernelscope.kinds.ncu.export.ncu_summary import print_kernels_summary
from kernelscope.kinds.ncu.model.container import read_layout
from kernelscope.kinds.ncu.model.file_format.result import MESSAGE_OF
from kernelscope.kinds.ncu.model.legacy import ALIASES
from kernelscope.kinds.ncu.model.metrics import read_metric, read_metrics
from tests.conftest import NCU_SAMPLES
from tests.wild.conftest import WILD

PRE_2020 = (
    (WILD or Path("absent")) / "ncu" / "evozone96__matrixMul__profile.nsight-cuprof-report.xz"
)
STREAMED = ("multi_process", "small_family", "zoo", "range_replay", "torch_ops")


def _printed(analysed: object) -> str:
    out = io.StringIO()
    print_kernels_summary(analysed, make_console(out))  # type: ignore[arg-type]
    return out.getvalue()


@pytest.mark.parametrize("name", STREAMED)
def test_streamed_summary_prints_what_the_whole_analysis_prints(name: str) -> None:
    report = open_for_analysis(NCU_SAMPLES / f"{name}.ncu-rep.xz")
    whole, streamed = analyze(report), stream_summary(report)
    assert _printed(streamed) == _printed(whole)
    assert "Kernel families by total time" in _printed(streamed)
    for process in {str(p.pid) for p in report.processes} | {"no-such-process"}:
        chosen = replace(whole, process=process).select_families()
        assert replace(streamed, process=process).select_families() == chosen
    assert [streamed.family_labels(f) for f in streamed.families] == [
        whole.family_labels(f) for f in whole.families
    ]


def test_streamed_summary_keeps_only_the_median_launches_whole() -> None:
    report = open_for_analysis(NCU_SAMPLES / "small_family.ncu-rep.xz")
    streamed = stream_summary(report)
    assert sorted(streamed.representatives) == sorted(
        f.representative for f in streamed.families
    )
    assert len(streamed.labels) == report.kernel_count > len(streamed.representatives)


def _every_name(report: object) -> tuple[str, ...]:
    results = [report._result(i) for i in range(report.kernel_count)]  # type: ignore[attr-defined]
    names = {n for r in results for n in r.metric_names()}
    return tuple(sorted(names | set(ALIASES) | {"no__such_metric.sum"}))


@pytest.mark.parametrize(
    "path", [NCU_SAMPLES / "zoo.ncu-rep.xz", NCU_SAMPLES / "multi_process.ncu-rep.xz", PRE_2020]
)
def test_read_metrics_answers_as_one_read_per_name(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} is not here")
    report = open_for_analysis(path)
    names = _every_name(report)
    by_old_name = 0
    for kernel_id in range(report.kernel_count):
        result = report._result(kernel_id)
        one_by_one = {n: m for n in names if (m := read_metric(result, n)) is not None}
        bulk = read_metrics(result, names)
        assert list(bulk) == list(one_by_one)
        assert {n: repr(m) for n, m in bulk.items()} == {  # repr: NaN equals NaN
            n: repr(m) for n, m in one_by_one.items()
        }
        by_old_name += sum(n in bulk and n not in result.present() for n in ALIASES)
        labelled = read_metrics(result, names, {n: f"label of {n}" for n in names[:5]})
        assert {n: m.label for n, m in labelled.items() if m.label} == {
            n: f"label of {n}" for n in names[:5] if n in one_by_one
        }
    assert (by_old_name > 0) == (path == PRE_2020)  # only a pre-2020 report has old names


def test_result_index_hands_out_every_result_the_walk_found(tmp_path: Path) -> None:
    plain = tmp_path / "multi_process.ncu-rep"
    plain.write_bytes(lzma.decompress((NCU_SAMPLES / "multi_process.ncu-rep.xz").read_bytes()))
    with open(plain, "rb") as fh:
        layout = read_layout(fh, str(plain))
        results = list(layout.results)
        assert len(results) == len(layout.results) > 1
        assert layout.results[-1] == results[-1] and layout.results[1:3] == results[1:3]
        assert [r.offset for r in results] == sorted(r.offset for r in results)
        assert len({r.process.pid for r in results}) == 2
        for info in results:
            fh.seek(info.offset)
            assert MESSAGE_OF[info.kind].FromString(fh.read(info.size)).ListFields()
        with pytest.raises(IndexError):
            layout.results[len(results)]


def test_a_spool_holds_texts_in_memory_up_to_its_budget_and_the_rest_in_its_file() -> None:
    from kernelscope.core.text_spool import TextSpool

    spool = TextSpool(budget=10)
    spool[1] = "abcd"
    spool[2] = "é ünïcode ✓"  # 11 characters: past the budget, written to the file
    spool[3] = "efgh"  # fits beside the first
    spool[4] = ("not text", 1)
    assert spool.spilled == 1
    assert [spool[k] for k in (1, 2, 3, 4)] == ["abcd", "é ünïcode ✓", "efgh", ("not text", 1)]
    assert [spool.is_text(k) for k in (1, 2, 3, 4)] == [True, True, True, False]
    assert sorted(spool) == [1, 2, 3, 4] and len(spool) == 4
    del spool[1]
    spool[5] = "ijklmn"  # the freed characters are the budget's again
    assert spool.spilled == 1 and 1 not in spool and spool[5] == "ijklmn"
    spool[3] = "x" * 20  # replaced: the old text goes, the new one to the file
    assert spool.spilled == 2 and spool[3] == "x" * 20 and len(spool) == 4
    spool.close()


def test_records_made_in_the_reading_pass_wait_in_a_spool_and_read_back_whole() -> None:
    from kernelscope.core.text_spool import TextSpool
    from kernelscope.export.writer import joined
    from kernelscope.kinds.ncu.export.ncu_json import JsonMembers, ncu_json_pieces

    report = open_for_analysis(NCU_SAMPLES / "zoo.ncu-rep.xz")
    analysed = analyze(report, details=True, analyse=JsonMembers(), slim=True, tables=True)
    spool = analysed.extras
    assert isinstance(spool, TextSpool) and len(spool) == report.kernel_count
    assert all(spool.is_text(i) and '"metrics"' in spool[i] for i in range(report.kernel_count))
    first = joined(ncu_json_pieces(analysed))
    assert joined(ncu_json_pieces(analysed)) == first  # writing one leaves the spool whole
    spool[0] = ("not text", 1)
    spool[1] = "é ünïcode ✓"
    assert spool[0] == ("not text", 1) and not spool.is_text(0) and spool[1] == "é ünïcode ✓"
    del spool[1]
    assert 1 not in spool and len(spool) == report.kernel_count - 1


def test_a_batch_counts_only_its_reading_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """``iter_summaries``' batches are this many seconds of reading: the time the consumer
    takes with a batch (the kernel list drawing its first rows) does not cut the next one
    short. The clock here moves only while the consumer holds a batch."""
    from kernelscope.kinds.ncu.model import open_ncu_report
    from kernelscope.kinds.ncu.model import report as report_module

    clock = [0.0]
    monkeypatch.setattr(report_module.time, "perf_counter", lambda: clock[0])
    report = open_ncu_report(NCU_SAMPLES / "zoo.ncu-rep.xz")
    sizes = []
    for batch in report.iter_summaries(batch_seconds=0.4, first=3):
        sizes.append(len(batch))
        clock[0] += 1.0  # (the consumer's time with the batch)
    assert report.kernel_count == 12 and sizes == [3, 9]

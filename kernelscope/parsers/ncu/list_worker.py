"""The list pass in a child process: ``python -m kernelscope.parsers.ncu.list_worker``.

ncu_report keeps every kernel it has opened in memory until the process exits (about 0.8 MB a
kernel on a default-set report), so the pass over all kernels runs in short-lived children that
stream summaries back as JSON lines; several children split the kernels between cores.

Input (stdin, one JSON object): path, shard, shards, metrics, rules.
Output (stdout): one JSON array of wire summaries per batch, then ``{"done": n}``.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    job = json.loads(sys.stdin.readline())
    import ncu_report

    from kernelscope.parsers.ncu.summary_reader import read_summary, summary_to_wire

    ctx = ncu_report.load_report(job["path"])
    handles = [
        (r, a) for r in range(ctx.num_ranges()) for a in range(ctx.range_by_idx(r).num_actions())
    ]
    shard, shards = job["shard"], job["shards"]
    metrics, with_rules = tuple(job["metrics"]), bool(job["rules"])
    out = sys.stdout
    batch: list[dict] = []
    last = time.perf_counter()
    done = 0
    ranges = {}
    for kernel_id in range(shard, len(handles), shards):
        r, a = handles[kernel_id]
        rng = ranges.get(r) or ranges.setdefault(r, ctx.range_by_idx(r))
        summary = read_summary(rng.action_by_idx(a), kernel_id, (r, a), metrics, with_rules)
        batch.append(summary_to_wire(summary))
        done += 1
        now = time.perf_counter()
        if now - last >= job.get("batch_seconds", 0.1):
            out.write(json.dumps(batch, allow_nan=True) + "\n")
            out.flush()
            batch, last = [], now
    if batch:
        out.write(json.dumps(batch, allow_nan=True) + "\n")
    out.write(json.dumps({"done": done}) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

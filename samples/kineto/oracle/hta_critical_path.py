"""Run HTA 0.5.0's critical path analysis on a Kineto trace; write each ProfilerStep
instance's breakdown (share of the path by what bounds it) as CSV, and with KERNELS.csv the
time each kernel name spends on the path of each instance.

    /tmp/htaenv/bin/python hta_critical_path.py TRACE.json.xz OUT.csv [KERNELS.csv]

(HTA 0.5.0 needs pandas < 2.3.)
"""

import csv
import logging
import lzma
import os
import shutil
import sys
import tempfile

from hta.trace_analysis import TraceAnalysis

logging.disable(logging.WARNING)
src, out = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
name = os.path.basename(src).removesuffix(".xz")
with lzma.open(src) as zin, open(os.path.join(tmp, name), "wb") as fout:
    shutil.copyfileobj(zin, fout)
analyzer = TraceAnalysis(trace_dir=tmp)
rows = []
kernels = []
for instance in range(3):
    graph, ok = analyzer.critical_path_analysis(rank=0, annotation="ProfilerStep",
                                                instance_id=instance)
    if not ok:
        continue
    edges = graph.get_critical_path_breakdown()
    total = edges.duration.sum()
    shares = edges.groupby("bound_by").duration.sum() / total * 100
    rows.append({"instance": instance, "path_us": total,
                 **{k: round(float(v), 2) for k, v in shares.items() if k}})
    on_gpu = edges[(edges.type == "critical_path_operator") & (edges.stream >= 0)]
    for kernel, us in on_gpu.groupby("s_name").duration.sum().items():
        kernels.append({"instance": instance, "kernel": kernel, "us": float(us)})
keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in ("instance", "path_us"), k))
with open(out, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=keys)
    writer.writeheader()
    writer.writerows(rows)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["instance", "kernel", "us"])
        writer.writeheader()
        writer.writerows(kernels)
shutil.rmtree(tmp)

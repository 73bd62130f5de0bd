"""Run HTA 0.5.0 over one trace or a folder of traces; write its numbers as CSV files.

    /work/htaenv/bin/python hta_oracle.py TRACE_OR_FOLDER OUTDIR PREFIX
"""

import logging
import lzma
import os
import shutil
import sys
import tempfile

import pandas as pd
from hta.trace_analysis import TraceAnalysis

logging.disable(logging.WARNING)
src, out, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp()
files = [src] if os.path.isfile(src) else [os.path.join(src, f) for f in sorted(os.listdir(src))]
for f in files:
    name = os.path.basename(f)
    if name.endswith(".json.xz"):
        with lzma.open(f) as zin, open(os.path.join(tmp, name[:-3]), "wb") as fout:
            fout.write(zin.read())
a = TraceAnalysis(trace_dir=tmp)
tb = a.get_temporal_breakdown(visualize=False).merge(
    a.get_comm_comp_overlap(visualize=False), on="rank")
tb.to_csv(os.path.join(out, f"{prefix}.temporal_breakdown.csv"), index=False)
rows = []
for rank in sorted(a.t.get_ranks()):
    idle = a.get_idle_time_breakdown(ranks=[rank], visualize=False)[0]
    if "rank" not in idle.columns:
        idle.insert(0, "rank", rank)
    rows.append(idle)
pd.concat(rows).to_csv(os.path.join(out, f"{prefix}.idle_time_breakdown.csv"), index=False)
kt, _ = a.get_gpu_kernel_breakdown(visualize=False)
kt.to_csv(os.path.join(out, f"{prefix}.kernel_type_breakdown.csv"), index=False)
shutil.rmtree(tmp)

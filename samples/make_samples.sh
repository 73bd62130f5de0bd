#!/usr/bin/env bash
# make_samples.sh — regenerate every kernelscope sample report and its oracle.
#
# Needs a machine with an NVIDIA H200 (any sm_90 GPU works; counters differ),
# nvcc (CUDA 13), Nsight Compute (ncu), Nsight Systems (nsys), python3 with
# PyTorch (CUDA build), and xz.
#
# Usage:   samples/make_samples.sh OUTDIR [STAGE ...]
# Stages (default: all of them, in this order):
#   versions      tool versions -> OUTDIR/raw/versions.txt
#   build         nvcc -lineinfo -O3 -arch=$ARCH the four programs -> OUTDIR/build/
#   nsys_profile  nsys profile timeline_torch, timeline_plain, many_tiny -> raw/nsys/*.nsys-rep
#   nsys_post     nsys export/stats/analyze on those reports (CPU only)
#   ncu           ncu zoo (full set + source), torch_ops (full set + source),
#                 many_launches (default set) + --page details/raw CSV oracles -> raw/ncu/
#   pack          xz -9e into the committed layout OUTDIR/samples/{ncu,nsys}/[oracle/]
# After `pack`, copy OUTDIR/samples/* over the repository's samples/ folder.
#
# Environment (all optional):
#   NCU, NSYS, NVCC, PYTHON   tool paths (NSYS falls back to the copy bundled with
#                             Nsight Compute 2025.3.1 when no nsys is on PATH)
#   ARCH=sm_90                nvcc target
#   DEADLINE=<epoch seconds>  no step runs past this time (each step's timeout is cut)
#
# The exact commands (the same ones this script runs):
#   ncu --clock-control none --set full --import-source yes -f -o zoo ./kernels_zoo
#   ncu --clock-control none --set full --import-source yes --profile-from-start off \
#       -f -o torch_ops python3 torch/torch_kernels.py
#   ncu --clock-control none -f -o many_launches ./many_launches          (default set)
#   ncu --import R.ncu-rep --page details --csv --print-units base > R.details.csv
#   ncu --import R.ncu-rep --page raw     --csv --print-units base > R.raw.csv
#   nsys profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none \
#       --cuda-graph-trace=node -o X -f true PROGRAM       (many_tiny: --trace=cuda)
#   nsys export --type sqlite --force-overwrite true -o X.sqlite X.nsys-rep
#   nsys stats --format csv --force-overwrite true --report $NSYS_REPORTS -o X X.sqlite
#   nsys stats --report $NSYS_REPORTS X.sqlite > X.stats.txt
#   nsys analyze --format csv --force-overwrite true -o X X.sqlite ; nsys analyze X.sqlite > X.analyze.txt
#   nsys analyze -r $NSYS_RULES --format csv --force-overwrite true -o X X.sqlite
#   nsys analyze -r $NSYS_RULES X.sqlite > X.analyze_rules.txt
set -u -o pipefail

OUTDIR=${1:?usage: make_samples.sh OUTDIR [STAGE ...]}
shift
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STAGES=${*:-versions build nsys_profile nsys_post ncu pack}

ARCH=${ARCH:-sm_90}
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
PYTHON=${PYTHON:-python3}
NSYS_BUNDLED=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
NSYS=${NSYS:-$(command -v nsys || echo "$NSYS_BUNDLED")}
DEADLINE=${DEADLINE:-$(($(date +%s) + 86400))}
NSYS_REPORTS=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum,osrt_sum,cuda_gpu_trace
NSYS_RULES=gpu_gaps,gpu_time_util,cuda_memcpy_async,cuda_memcpy_sync,cuda_memset_sync,cuda_api_sync

B=$OUTDIR/build
RN=$OUTDIR/raw/ncu
RS=$OUTDIR/raw/nsys
mkdir -p "$B" "$RN" "$RS"
FAILED=$OUTDIR/raw/FAILED.txt
touch "$FAILED"

log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# run T CMD...: run CMD with timeout min(T, time left before DEADLINE); record failures
run() {
  local t=$1 left
  shift
  left=$((DEADLINE - $(date +%s)))
  ((left < t)) && t=$left
  if ((t <= 5)); then
    log "SKIP (deadline): $*"
    echo "skipped(deadline): $*" >>"$FAILED"
    return 124
  fi
  log "RUN (<=${t}s): $*"
  timeout -k 15 -s INT "$t" "$@"
  local rc=$?
  ((rc != 0)) && { log "rc=$rc: $*"; echo "rc=$rc: $*" >>"$FAILED"; }
  return $rc
}

# prefix every line with a timestamp (to see per-kernel profiling pace)
stamp() { while IFS= read -r l; do printf '%(%H:%M:%S)T %s\n' -1 "$l"; done; }

stage_versions() {
  {
    echo "== date"; date -u
    echo "== ncu --version"; "$NCU" --version
    echo "== nsys --version ($NSYS)"; "$NSYS" --version
    echo "== nvcc --version"; "$NVCC" --version
    echo "== nvidia-smi"; nvidia-smi
    echo "== nvidia-smi -q (product, driver, clocks)"
    nvidia-smi --query-gpu=name,driver_version,vbios_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    echo "== torch"; "$PYTHON" -c 'import torch,sys; print(sys.version); print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
    echo "== uname"; uname -a
  } >"$OUTDIR/raw/versions.txt" 2>&1
  log "versions written"
}

stage_build() {
  local p pids=()
  for p in kernels_zoo many_launches many_tiny timeline_plain; do
    run 300 "$NVCC" -lineinfo -O3 -arch="$ARCH" -Xptxas -v -o "$B/$p" "$SRC/cuda/$p.cu" \
      >"$B/$p.ptxas.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  grep -A2 register_spill "$B/kernels_zoo.ptxas.txt" >&2 || true
}

# nsys_one NAME TRACE CMD...
nsys_one() {
  local name=$1 trace=$2
  shift 2
  rm -f "$RS/$name.nsys-rep" "$RS/$name.qdstrm"
  (cd "$RS" && run 150 "$NSYS" profile --trace="$trace" --sample=none --cpuctxsw=none \
    --cuda-graph-trace=node -o "$name" -f true "$@") >"$RS/$name.profile.log" 2>&1
  if [[ ! -s $RS/$name.nsys-rep && -s $RS/$name.qdstrm ]]; then
    local qdi
    qdi=$(dirname "$NSYS")/../linux-desktop-glibc_2_11_3-x64/QdstrmImporter
    [[ -x $qdi ]] || qdi=$(find /opt/nvidia -name QdstrmImporter -type f 2>/dev/null | head -1)
    log "no .nsys-rep for $name; converting .qdstrm with $qdi"
    run 180 "$qdi" -i "$RS/$name.qdstrm" >>"$RS/$name.profile.log" 2>&1
  fi
  ls -la "$RS/$name".* >&2
}

stage_nsys_profile() {
  nsys_one timeline_plain cuda,nvtx,osrt "$B/timeline_plain"
  nsys_one timeline_torch cuda,nvtx,osrt "$PYTHON" "$SRC/torch/timeline.py"
  nsys_one many_tiny cuda "$B/many_tiny"
}

nsys_post_one() {
  local n=$1
  [[ -s $RS/$n.nsys-rep ]] || { log "no $n.nsys-rep"; echo "missing: $n.nsys-rep" >>"$FAILED"; return 1; }
  cd "$RS" || return 1
  run 240 "$NSYS" export --type sqlite --force-overwrite true -o "$n.sqlite" "$n.nsys-rep" >"$n.export.log" 2>&1
  run 240 "$NSYS" stats --format csv --force-overwrite true --report "$NSYS_REPORTS" -o "$n" "$n.sqlite" >"$n.stats_csv.log" 2>&1
  run 240 "$NSYS" stats --report "$NSYS_REPORTS" "$n.sqlite" >"$n.stats.txt" 2>"$n.stats_txt.log"
  run 240 "$NSYS" analyze --format csv --force-overwrite true -o "$n" "$n.sqlite" >"$n.analyze_csv.log" 2>&1
  run 240 "$NSYS" analyze "$n.sqlite" >"$n.analyze.txt" 2>"$n.analyze_txt.log"
  run 240 "$NSYS" analyze -r "$NSYS_RULES" --format csv --force-overwrite true -o "$n" "$n.sqlite" >"$n.analyze_rules_csv.log" 2>&1
  run 240 "$NSYS" analyze -r "$NSYS_RULES" "$n.sqlite" >"$n.analyze_rules.txt" 2>"$n.analyze_rules_txt.log"
}

stage_nsys_post() {
  {
    "$NSYS" stats --help
    echo "== stats --help-reports"; "$NSYS" stats --help-reports
    echo "== analyze --help"; "$NSYS" analyze --help
    echo "== analyze --help-rules"; "$NSYS" analyze --help-rules
  } >"$RS/nsys_help.txt" 2>&1
  local n pids=()
  for n in timeline_plain timeline_torch many_tiny; do
    (nsys_post_one "$n") &
    pids+=($!)
  done
  for n in "${pids[@]}"; do wait "$n"; done
}

ncu_oracles() {
  local r=$1
  run 300 "$NCU" --import "$RN/$r.ncu-rep" --page details --csv --print-units base >"$RN/$r.details.csv" 2>"$RN/$r.details.log"
  run 300 "$NCU" --import "$RN/$r.ncu-rep" --page raw --csv --print-units base >"$RN/$r.raw.csv" 2>"$RN/$r.raw.log"
}

stage_ncu() {
  local pids=()
  (cd "$RN" && run 240 "$NCU" --clock-control none --set full --import-source yes -f -o zoo \
    "$B/kernels_zoo") 2>&1 | stamp >"$RN/zoo.profile.log"
  [[ -s $RN/zoo.ncu-rep ]] && { ncu_oracles zoo & pids+=($!); }

  (cd "$RN" && run 240 "$NCU" --clock-control none --set full --import-source yes \
    --profile-from-start off -f -o torch_ops "$PYTHON" "$SRC/torch/torch_kernels.py") 2>&1 |
    stamp >"$RN/torch_ops.profile.log"
  [[ -s $RN/torch_ops.ncu-rep ]] && { ncu_oracles torch_ops & pids+=($!); }

  # default section set (no --set), kernel replay: 10 passes a kernel, ~0.4 s a
  # launch on an H200, so ~7 minutes for the 1,000 launches.  If the deadline
  # cuts it short, ncu (stopped with SIGINT) still writes the kernels it profiled.
  (cd "$RN" && run 900 "$NCU" --clock-control none -f -o many_launches "$B/many_launches") 2>&1 |
    stamp >"$RN/many_launches.profile.log"
  [[ -s $RN/many_launches.ncu-rep ]] && { ncu_oracles many_launches & pids+=($!); }
  local p
  for p in "${pids[@]}"; do wait "$p"; done
}

stage_pack() {
  local S=$OUTDIR/samples f
  mkdir -p "$S/ncu/oracle" "$S/nsys/oracle"
  {
    for f in "$RN"/*.ncu-rep; do [[ -e $f ]] && echo "$f $S/ncu/$(basename "$f").xz"; done
    for f in "$RN"/*.details.csv "$RN"/*.raw.csv; do [[ -e $f ]] && echo "$f $S/ncu/oracle/$(basename "$f").xz"; done
    for f in "$RS"/*.nsys-rep "$RS"/*.sqlite; do [[ -e $f ]] && echo "$f $S/nsys/$(basename "$f").xz"; done
    for f in "$RS"/*.csv "$RS"/*.stats.txt "$RS"/*.analyze.txt "$RS"/*.analyze_rules.txt; do
      [[ -e $f ]] && echo "$f $S/nsys/oracle/$(basename "$f").xz"
    done
  } | xargs -P "$(nproc)" -L 1 sh -c 'xz -9e -c "$0" > "$1"'
  [[ -e $OUTDIR/raw/versions.txt ]] && cp "$OUTDIR/raw/versions.txt" "$S/versions.txt"
  ls -la "$S"/ncu "$S"/ncu/oracle "$S"/nsys "$S"/nsys/oracle >&2
}

for st in $STAGES; do
  log "=== stage $st"
  "stage_$st"
done
log "=== done; failures:"
cat "$FAILED" >&2

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
#   build         nvcc -lineinfo -O3 -arch=$ARCH every program in cuda/ -> OUTDIR/build/
#   nsys_profile  nsys profile timeline_torch, timeline_plain, many_tiny -> raw/nsys/*.nsys-rep
#   nsys_new      nsys profile graph_eager, graph_replay, gpu_metrics, join_trace and the
#                 four per-rank traces ranks/rank{0..3} -> raw/nsys/
#   nsys_big      nsys profile many_launches (the program of ncu/many_launches) -> raw/nsys/
#   nsys_nccl     (two GPUs) the two per-rank NCCL traces nccl/nccl_rank{0,1} -> raw/nsys/nccl/
#   nsys_post     nsys export/stats/analyze on every .nsys-rep without a .sqlite (CPU only)
#   ncu           ncu zoo (full set + source), torch_ops (full set + source),
#                 many_launches (default set) + --page details/raw CSV oracles -> raw/ncu/
#   ncu_new       the diff, diagnosis, multi-process, range-replay and join kernel reports
#                 (see samples/README.md) + their oracles -> raw/ncu/
#   ncu_diag      the diagnosis cases diag_pipe, diag_membar, diag_sgemm and the thrust
#                 program thrust_lambdas (--set full) + their oracles -> raw/ncu/
#   ncu_big       the benchmark reports: many_launches_huge (5,000-10,000 launches,
#                 LaunchStats only) and many_launches_full_264 (264 launches, --set full)
#                 -> raw/ncu/big/
#   kineto        torch.profiler (Kineto) traces: kineto_step (one GPU, record_function
#                 ranges, with_stack) and two runs of kineto_ranks (4 gloo ranks on one GPU,
#                 rank 2 slowed by 30 ms a step; run "other" only to test mixed runs)
#                 -> raw/kineto/ (packed to samples/kineto/)
#   uneven        two gloo ranks whose profiles record different collectives (uneven_ranks.py)
#                 -> raw/new/kineto/uneven/
#   managed       managed_memory.cu: nsys (unified-memory page faults) + its kernel report
#                 -> raw/new/nsys/managed/, raw/new/ncu/
#   whatif        whatif_cases.py: base/fast pairs, torch.profiler and nsys -> raw/new/whatif/
#   whatif_metrics  beside and shift by nsys with --gpu-metrics-devices=all
#                 -> raw/new/whatif/metrics/
#   opeff         opeff.py: GEMM sweep and SDPA with shapes (torch.profiler, nsys emit_nvtx)
#                 and their kernel reports with tensor-op counters -> raw/new/opeff/
#   whatif_ranks  whatif_ranks.py: two gloo ranks, base and fast (the straggler's spin
#                 kernel halved), torch.profiler and nsys
#                 -> raw/new/whatif/ranks_{base,fast}_{kineto,nsys}/
#   opeff_optim   opeff_optim.py: AdamW (foreach and fused) and variable-length attention
#                 with shapes (torch.profiler) -> raw/new/opeff/
#   pack          xz -9e into the committed layout OUTDIR/samples/{ncu,nsys}/[oracle/]
#   pack_new      xz -9e raw/new/* into OUTDIR/samples/ (the four stages above)
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
STAGES=${*:-versions build nsys_profile nsys_new nsys_big nsys_post ncu ncu_new ncu_diag ncu_big pack}

ARCH=${ARCH:-sm_90}
NVCC=${NVCC:-nvcc}
NCU=${NCU:-ncu}
PYTHON=${PYTHON:-python3}
NSYS_BUNDLED=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
NSYS=${NSYS:-$(command -v nsys || echo "$NSYS_BUNDLED")}
DEADLINE=${DEADLINE:-$(($(date +%s) + 86400))}
NSYS_REPORTS=cuda_gpu_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum,nvtx_sum,osrt_sum,cuda_gpu_trace
NSYS_RULES=gpu_gaps,gpu_time_util,cuda_memcpy_async,cuda_memcpy_sync,cuda_memset_sync,cuda_api_sync
# per-range and launch-latency reports (the traces made by nsys_new use them as oracles)
NSYS_REPORTS_EXTRA=nvtx_pushpop_trace,nvtx_gpu_proj_trace,nvtx_gpu_proj_sum,nvtx_kern_sum,cuda_kern_exec_sum

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
  local flags
  for p in "$SRC"/cuda/*.cu; do
    p=$(basename "$p" .cu)
    # BUILD_ONLY="a b": build just those programs
    if [[ -n ${BUILD_ONLY:-} && " $BUILD_ONLY " != *" $p "* ]]; then continue; fi
    # a program's extra nvcc options, from its "// nvcc-flags:" line
    flags=$(sed -n 's,^// nvcc-flags: ,,p' "$SRC/cuda/$p.cu")
    # shellcheck disable=SC2086
    run 300 "$NVCC" -lineinfo -O3 -arch="$ARCH" -Xptxas -v $flags -o "$B/$p" "$SRC/cuda/$p.cu" \
      >"$B/$p.ptxas.txt" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  grep -A2 register_spill "$B/kernels_zoo.ptxas.txt" >&2 2>/dev/null || true
}

# nsys_one NAME TRACE CMD...   ($NSYS_EXTRA: more nsys profile options)
nsys_one() {
  local name=$1 trace=$2
  shift 2
  rm -f "$RS/$name.nsys-rep" "$RS/$name.qdstrm"
  # shellcheck disable=SC2086
  (cd "$RS" && run 150 "$NSYS" profile --trace="$trace" --sample=none --cpuctxsw=none \
    --cuda-graph-trace=node ${NSYS_EXTRA:-} -o "$name" -f true "$@") >"$RS/$name.profile.log" 2>&1
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

stage_nsys_new() {
  nsys_one graph_eager cuda,nvtx,osrt "$PYTHON" "$SRC/torch/graph_step.py" --mode eager
  nsys_one graph_replay cuda,nvtx,osrt "$PYTHON" "$SRC/torch/graph_step.py" --mode graph
  nsys_one join_trace cuda,nvtx,osrt "$PYTHON" "$SRC/torch/join_app.py"
  NSYS_EXTRA="--gpu-metrics-devices=all --gpu-metrics-frequency=10000" \
    nsys_one gpu_metrics cuda,nvtx,osrt "$PYTHON" "$SRC/torch/graph_step.py" --mode both
  # four ranks of one data-parallel run, one nsys (and one report) per rank
  local r pids=()
  mkdir -p "$RS/ranks"
  for r in 0 1 2 3; do
    (cd "$RS/ranks" && RANK=$r WORLD_SIZE=4 MASTER_PORT=29533 run 150 "$NSYS" profile \
      --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none -o 'rank%q{RANK}' -f true \
      "$PYTHON" "$SRC/torch/ranks.py") >"$RS/ranks/rank$r.profile.log" 2>&1 &
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r"; done
  ls -la "$RS" "$RS/ranks" >&2
}

# Two ranks on two GPUs, NCCL all-reduce (needs a machine with two GPUs; NVLink
# multicast stays off, as the shared machines require).
# The timeline of the program that made the 1,000-launch kernel report ncu/many_launches (the
# same binary and arguments): the pair times `kernelscope join` at 1,000 launches (issue 18).
stage_nsys_big() {
  nsys_one many_launches cuda "$B/many_launches"
}

kineto_ranks_run() {  # kineto_ranks_run DIR PORT
  local r pids=()
  mkdir -p "$1"
  for r in 0 1 2 3; do
    (RANK=$r WORLD_SIZE=4 MASTER_PORT=$2 run 150 "$PYTHON" "$SRC/torch/kineto_ranks.py" "$1") \
      >"$1/rank$r.log" 2>&1 &
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r"; done
}

stage_kineto() {
  local K=$OUTDIR/raw/kineto
  mkdir -p "$K"
  run 150 "$PYTHON" "$SRC/torch/kineto_step.py" "$K" >"$K/kineto_step.log" 2>&1
  kineto_ranks_run "$K/ranks" 29555
  kineto_ranks_run "$K/other_run" 29556
  ls -la "$K" "$K/ranks" "$K/other_run" >&2
}

stage_nsys_nccl() {
  local r pids=()
  mkdir -p "$RS/nccl"
  for r in 0 1; do
    (cd "$RS/nccl" && NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
      RANK=$r WORLD_SIZE=2 MASTER_PORT=29544 run 180 "$NSYS" profile \
      --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none -o 'nccl_rank%q{RANK}' -f true \
      "$PYTHON" "$SRC/torch/nccl_ranks.py") >"$RS/nccl/nccl_rank$r.profile.log" 2>&1 &
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r"; done
  ls -la "$RS/nccl" >&2
}

nsys_post_one() {
  local n=$1 dir=${2:-$RS}
  [[ -s $dir/$n.nsys-rep ]] || { log "no $n.nsys-rep"; echo "missing: $n.nsys-rep" >>"$FAILED"; return 1; }
  cd "$dir" || return 1
  run 240 "$NSYS" export --type sqlite --force-overwrite true -o "$n.sqlite" "$n.nsys-rep" >"$n.export.log" 2>&1
  run 240 "$NSYS" stats --format csv --force-overwrite true --report "$NSYS_REPORTS" -o "$n" "$n.sqlite" >"$n.stats_csv.log" 2>&1
  run 240 "$NSYS" stats --report "$NSYS_REPORTS" "$n.sqlite" >"$n.stats.txt" 2>"$n.stats_txt.log"
  run 240 "$NSYS" analyze --format csv --force-overwrite true -o "$n" "$n.sqlite" >"$n.analyze_csv.log" 2>&1
  run 240 "$NSYS" analyze "$n.sqlite" >"$n.analyze.txt" 2>"$n.analyze_txt.log"
  run 240 "$NSYS" analyze -r "$NSYS_RULES" --format csv --force-overwrite true -o "$n" "$n.sqlite" >"$n.analyze_rules_csv.log" 2>&1
  run 240 "$NSYS" analyze -r "$NSYS_RULES" "$n.sqlite" >"$n.analyze_rules.txt" 2>"$n.analyze_rules_txt.log"
  run 240 "$NSYS" stats --format csv --force-overwrite true --report "$NSYS_REPORTS_EXTRA" -o "$n" "$n.sqlite" >"$n.stats_extra.log" 2>&1
}

stage_nsys_post() {
  {
    "$NSYS" stats --help
    echo "== stats --help-reports"; "$NSYS" stats --help-reports
    echo "== analyze --help"; "$NSYS" analyze --help
    echo "== analyze --help-rules"; "$NSYS" analyze --help-rules
  } >"$RS/nsys_help.txt" 2>&1
  local f pids=()
  for f in "$RS"/*.nsys-rep "$RS"/ranks/*.nsys-rep "$RS"/nccl/*.nsys-rep; do
    [[ -e $f && ! -e ${f%.nsys-rep}.sqlite ]] || continue
    (nsys_post_one "$(basename "$f" .nsys-rep)" "$(dirname "$f")") &
    pids+=($!)
  done
  for f in "${pids[@]}"; do wait "$f"; done
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

# ncu_one NAME T NCU-OPTION... -- PROGRAM ARGS...: profile into raw/ncu/NAME.ncu-rep, then
# write its two oracles in the background (their pids collect in ORACLE_PIDS); $ONLY, when
# set, lists the names to profile (the others are skipped)
ORACLE_PIDS=()
ncu_one() {
  local name=$1 t=$2
  shift 2
  # ONLY="a b": profile just those names (e.g. to redo the ones a deadline skipped)
  if [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]]; then return 0; fi
  (cd "$RN" && run "$t" "$NCU" --clock-control none "$@") 2>&1 | stamp >"$RN/$name.profile.log"
  if [[ -s $RN/$name.ncu-rep ]]; then
    ncu_oracles "$name" &
    ORACLE_PIDS+=($!)
  fi
}

stage_ncu_new() {
  local full=(--set full --import-source yes) v
  for v in naive tiled regtile wmma; do
    ncu_one "gemm_$v" 120 "${full[@]}" -f -o "gemm_$v" "$B/gemm_ladder" "$v"
  done
  for v in conflicts padded; do
    ncu_one "transpose_$v" 120 "${full[@]}" -f -o "transpose_$v" "$B/transpose_pad" "$v"
  done
  ncu_one histogram 120 "${full[@]}" -f -o histogram "$B/histogram_atomics"
  ncu_one join_kernels 300 "${full[@]}" --profile-from-start off -f -o join_kernels \
    "$PYTHON" "$SRC/torch/join_app.py" --ncu
  ncu_one small_family 200 -f -o small_family "$B/small_family" 150
  ncu_one gemm_sets_default 120 -f -o gemm_sets_default "$B/gemm_ladder" sets
  ncu_one gemm_sets_full 200 "${full[@]}" -f -o gemm_sets_full "$B/gemm_ladder" sets
  ncu_one multi_process 120 --target-processes all -f -o multi_process \
    sh -c "'$B/multi_process' 1 && '$B/multi_process' 2"
  ncu_one range_replay 120 --replay-mode range -f -o range_replay "$B/range_replay"
  ncu_one range_nvtx 120 --replay-mode app-range --nvtx --nvtx-include 'phase_a/' \
    --nvtx-include 'phase_b/' -f -o range_nvtx "$B/range_replay" nvtx
  ncu_one gemm_torch_default 150 --profile-from-start off -f -o gemm_torch_default \
    "$PYTHON" "$SRC/torch/gemm_sets.py"
  ncu_one gemm_torch_full 200 --set full --profile-from-start off -f -o gemm_torch_full \
    "$PYTHON" "$SRC/torch/gemm_sets.py"
  local p
  for p in "${ORACLE_PIDS[@]}"; do wait "$p"; done
}

# The diagnosis cases of issue 24 (samples/README.md): a pipe saturated by a grid of half the
# SMs, memory-fence stalls, an FP32 SGEMM without tensor cores, and a thrust program whose
# kernels are templated on device lambdas. Build them with BUILD_ONLY="diagnosis_cases
# thrust_lambdas" to skip the other programs.
stage_ncu_diag() {
  local full=(--set full --import-source yes) v
  for v in pipe membar sgemm; do
    ncu_one "diag_$v" 120 "${full[@]}" -f -o "diag_$v" "$B/diagnosis_cases" "$v"
  done
  ncu_one thrust_lambdas 240 "${full[@]}" -f -o thrust_lambdas "$B/thrust_lambdas"
  local p
  for p in "${ORACLE_PIDS[@]}"; do wait "$p"; done
}

# The benchmark reports: many_launches_huge (LaunchStats only, 5,000-10,000 launches) and
# many_launches_full_264 (--set full, 264 launches). ncu's cost is per profiled launch and
# per pass: on the H200 VM ~0.35 s a launch for the three list sections (LaunchStats,
# Occupancy, SpeedOfLight) or the default set, ~1.8 s for the full set, but only ~0.036 s for
# LaunchStats alone (one pass, no memory saved and restored). So a short probe times 80
# launches of each choice, and the huge report takes the richest choice whose launches fit
# BIG_SECONDS (LaunchStats alone on that VM: 8,676 launches in 129 s). Probe and plan go to
# big/probe.txt.
stage_ncu_big() {
  local RB=$RN/big name t0 t1
  mkdir -p "$RB"
  : >"$RB/probe.txt"
  local -A opts=(
    [list]="--section LaunchStats --section Occupancy --section SpeedOfLight"
    [launch]="--section LaunchStats"
  )
  for name in list launch; do
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    (cd "$RB" && run 120 "$NCU" --clock-control none -c 80 ${opts[$name]} -f \
      -o "probe_$name" "$B/many_launches" 20) >"$RB/probe_$name.log" 2>&1
    t1=$(date +%s.%N)
    "$PYTHON" -c "print('$name', round(($t1 - $t0) / 80, 4))" >>"$RB/probe.txt"
  done
  rm -f "$RB"/probe_*.ncu-rep
  local plan choice rounds
  plan=$("$PYTHON" - "${BIG_SECONDS:-300}" "$RB/probe.txt" <<'PY'
import sys
left = float(sys.argv[1])
rates = {k: float(v) for k, v in (line.split() for line in open(sys.argv[2]))}
for name in ("list", "launch"):  # the richest that fits 5,000 launches
    if rates[name] * 5000 < 0.9 * left:
        break
launches = max(5000, min(10000, int(0.9 * left / rates[name])))
print(name, launches // 4)
PY
  )
  read -r choice rounds <<<"$plan"
  echo "plan: $choice rounds=$rounds launches=$((rounds * 4))" | tee -a "$RB/probe.txt" >&2
  # shellcheck disable=SC2086
  (cd "$RB" && run "${BIG_SECONDS:-300}" "$NCU" --clock-control none ${opts[$choice]} -f \
    -o many_launches_huge "$B/many_launches" "$rounds") 2>&1 |
    stamp >"$RB/many_launches_huge.profile.log"
  (cd "$RB" && run "${FULL_SECONDS:-540}" "$NCU" --clock-control none --set full -c 264 -f \
    -o many_launches_full_264 "$B/many_launches" 66) 2>&1 |
    stamp >"$RB/many_launches_full_264.profile.log"
  local r
  for r in many_launches_huge many_launches_full_264; do
    [[ -s $RB/$r.ncu-rep ]] || continue
    run 200 "$NCU" --import "$RB/$r.ncu-rep" --page raw --csv --print-units base \
      >"$RB/$r.raw.csv" 2>"$RB/$r.raw.log" &
  done
  wait
}

# --- issue 34/37/38 samples: everything goes under raw/new/ in the committed layout ---
NEW=$OUTDIR/raw/new

stage_uneven() {
  local d=$NEW/kineto/uneven r pids=()
  mkdir -p "$d"
  for r in 0 1; do
    (RANK=$r WORLD_SIZE=2 MASTER_PORT=29577 run 150 "$PYTHON" "$SRC/torch/uneven_ranks.py" "$d") \
      >"$d/rank$r.log" 2>&1 &
    pids+=($!)
  done
  for r in "${pids[@]}"; do wait "$r"; done
  ls -la "$d" >&2
}

# nsys_stats_into DIR NAME: export NAME.nsys-rep to SQLite and write nsys stats oracles
nsys_stats_into() {
  local d=$1 n=$2
  (cd "$d" && run 240 "$NSYS" export --type sqlite --force-overwrite true -o "$n.sqlite" "$n.nsys-rep") \
    >"$d/$n.export.log" 2>&1
  mkdir -p "$d/oracle"
  (cd "$d/oracle" && run 240 "$NSYS" stats --format csv --force-overwrite true \
    --report "$NSYS_REPORTS" -o "$n" "../$n.sqlite") >"$d/$n.stats.log" 2>&1
  (cd "$d/oracle" && run 240 "$NSYS" stats --format csv --force-overwrite true \
    --report um_sum,um_total_sum,um_cpu_page_faults_sum -o "$n" "../$n.sqlite") >"$d/$n.um_stats.log" 2>&1
}

stage_managed() {
  local d=$NEW/nsys/managed
  mkdir -p "$d" "$NEW/ncu/oracle"
  (cd "$d" && run 150 "$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none \
    --cuda-um-cpu-page-faults=true --cuda-um-gpu-page-faults=true -o managed -f true \
    "$B/managed_memory") >"$d/managed.profile.log" 2>&1
  nsys_stats_into "$d" managed
  (cd "$NEW/ncu" && run 240 "$NCU" --clock-control none --set full --import-source yes -f \
    -o managed "$B/managed_memory") 2>&1 | stamp >"$NEW/ncu/managed.profile.log"
  run 200 "$NCU" --import "$NEW/ncu/managed.ncu-rep" --page details --csv --print-units base \
    >"$NEW/ncu/oracle/managed.details.csv" 2>/dev/null
  run 200 "$NCU" --import "$NEW/ncu/managed.ncu-rep" --page raw --csv --print-units base \
    >"$NEW/ncu/oracle/managed.raw.csv" 2>/dev/null
}

stage_whatif() {
  local d=$NEW/whatif c v
  mkdir -p "$d"
  run 300 "$PYTHON" "$SRC/torch/whatif_cases.py" kineto "$d" >"$d/kineto.log" 2>&1
  for c in serial beside hidden shift; do
    for v in base fast; do
      (cd "$d" && run 120 "$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none \
        -o "${c}_$v" -f true "$PYTHON" "$SRC/torch/whatif_cases.py" nvtx "$d" "$c" "$v") \
        >"$d/${c}_$v.profile.log" 2>&1
      (cd "$d" && run 120 "$NSYS" export --type sqlite --force-overwrite true -o "${c}_$v.sqlite" \
        "${c}_$v.nsys-rep") >"$d/${c}_$v.export.log" 2>&1
    done
  done
}

# The what-if pairs whose kernels share the GPU, traced by nsys with the GPU's metrics (its
# GPC clock among them): what the what-if names as kept beside the changed work, with the clock
# it ran at (docs/critical_path.md). The SQLite exports only.
stage_whatif_metrics() {
  local d=$NEW/whatif/metrics c v
  mkdir -p "$d"
  for c in beside shift; do
    for v in base fast; do
      (cd "$d" && run 120 "$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none \
        --gpu-metrics-devices=all --gpu-metrics-frequency=2000 -o "${c}_$v" -f true \
        "$PYTHON" "$SRC/torch/whatif_cases.py" nvtx "$d" "$c" "$v") >"$d/${c}_$v.profile.log" 2>&1
      (cd "$d" && run 120 "$NSYS" export --type sqlite --force-overwrite true -o "${c}_$v.sqlite" \
        "${c}_$v.nsys-rep" && rm -f "${c}_$v.nsys-rep") >"$d/${c}_$v.export.log" 2>&1
    done
  done
}

stage_opeff() {
  local d=$NEW/opeff w
  mkdir -p "$d/oracle"
  for w in gemm sdpa; do
    run 200 "$PYTHON" "$SRC/torch/opeff.py" kineto "$w" "$d" >"$d/kineto_$w.log" 2>&1
  done
  (cd "$d" && run 200 "$NSYS" profile --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none \
    -o gemm_sweep_nvtx -f true "$PYTHON" "$SRC/torch/opeff.py" nvtx gemm "$d") \
    >"$d/gemm_sweep_nvtx.profile.log" 2>&1
  (cd "$d" && run 200 "$NSYS" export --type sqlite --force-overwrite true \
    -o gemm_sweep_nvtx.sqlite gemm_sweep_nvtx.nsys-rep) >"$d/gemm_sweep_nvtx.export.log" 2>&1
  local metrics="regex:^sm__ops_path_tensor_,regex:^sm__inst_executed_pipe_tensor,gpu__time_duration.sum"
  for w in gemm sdpa; do
    (cd "$d" && OPEFF_REPS=1 run 300 "$NCU" --clock-control none --profile-from-start off \
      --section SpeedOfLight --metrics "$metrics" -f -o "opeff_$w" \
      "$PYTHON" "$SRC/torch/opeff.py" ncu "$w" "$d") 2>&1 | stamp >"$d/opeff_$w.profile.log"
    run 200 "$NCU" --import "$d/opeff_$w.ncu-rep" --page raw --csv --print-units base \
      >"$d/oracle/opeff_$w.raw.csv" 2>/dev/null
  done
}

stage_whatif_ranks() {
  local v k n r pids port=29601
  for v in base fast; do
    k=$NEW/whatif/ranks_${v}_kineto n=$NEW/whatif/ranks_${v}_nsys
    mkdir -p "$k" "$n"
    pids=()
    for r in 0 1; do
      (RANK=$r WORLD_SIZE=2 MASTER_PORT=$port run 150 "$PYTHON" "$SRC/torch/whatif_ranks.py" \
        kineto "$v" "$k") >"$k/rank$r.kineto.log" 2>&1 &
      pids+=($!)
    done
    for r in "${pids[@]}"; do wait "$r"; done
    port=$((port + 1))
    pids=()
    for r in 0 1; do
      (cd "$n" && RANK=$r WORLD_SIZE=2 MASTER_PORT=$port run 150 "$NSYS" profile \
        --trace=cuda,nvtx,osrt --sample=none --cpuctxsw=none -o "rank$r" -f true \
        "$PYTHON" "$SRC/torch/whatif_ranks.py" nvtx "$v" "$n") >"$n/rank$r.profile.log" 2>&1 &
      pids+=($!)
    done
    for r in "${pids[@]}"; do wait "$r"; done
    port=$((port + 1))
    for r in 0 1; do
      (cd "$n" && run 120 "$NSYS" export --type sqlite --force-overwrite true -o "rank$r.sqlite" \
        "rank$r.nsys-rep" && rm -f "rank$r.nsys-rep") >"$n/rank$r.export.log" 2>&1
    done
  done
}

stage_opeff_optim() {
  local d=$NEW/opeff
  mkdir -p "$d"
  run 200 "$PYTHON" "$SRC/torch/opeff_optim.py" "$d" >"$d/kineto_optim.log" 2>&1
  cat "$d/kineto_optim.log" >&2
}

stage_pack_new() {
  local S=$OUTDIR/samples
  (cd "$NEW" && find . -type f \( -name '*.json' -o -name '*.sqlite' -o -name '*.nsys-rep' \
    -o -name '*.ncu-rep' -o -name '*.csv' \)) | sed 's,^\./,,' |
    xargs -P "$(nproc)" -I{} sh -c 'mkdir -p "$(dirname "$2/$1")" && xz -T1 -9e -c "$3/$1" >"$2/$1.xz"' \
      _ {} "$S" "$NEW"
  (cd "$NEW" && find . -name '*.log' | tar -cJf "$OUTDIR/new_logs.tar.xz" -T -)
  find "$S" -type f | sort >&2
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
    for f in "$RS"/ranks/*.nsys-rep "$RS"/ranks/*.sqlite; do
      [[ -e $f ]] && echo "$f $S/nsys/ranks/$(basename "$f").xz"
    done
    for f in "$RS"/ranks/*.csv "$RS"/ranks/*.stats.txt "$RS"/ranks/*.analyze.txt; do
      [[ -e $f ]] && echo "$f $S/nsys/ranks/oracle/$(basename "$f").xz"
    done
    for f in "$RS"/nccl/*.nsys-rep "$RS"/nccl/*.sqlite; do
      [[ -e $f ]] && echo "$f $S/nsys/nccl/$(basename "$f").xz"
    done
    for f in "$RS"/nccl/*.csv "$RS"/nccl/*.stats.txt "$RS"/nccl/*.analyze.txt; do
      [[ -e $f ]] && echo "$f $S/nsys/nccl/oracle/$(basename "$f").xz"
    done
    for f in "$OUTDIR"/raw/kineto/*.json "$OUTDIR"/raw/kineto/ranks/*.json; do
      [[ -e $f ]] && echo "$f $S/kineto/${f#"$OUTDIR"/raw/kineto/}.xz"
    done
    for f in "$OUTDIR"/raw/kineto/other_run/rank0.pt.trace.json; do
      [[ -e $f ]] && echo "$f $S/kineto/other_run/$(basename "$f").xz"
    done
    for f in "$RN"/big/*.ncu-rep "$RN"/big/*.csv "$RN"/big/probe.txt; do
      [[ -e $f ]] && echo "$f $S/big/$(basename "$f").xz"
    done
  } | xargs -P "$(nproc)" -L 1 sh -c 'mkdir -p "$(dirname "$1")" &&
    if [ "$(stat -c %s "$0")" -gt 67108864 ]; then xz -T0 -6 -c "$0" >"$1"; else xz -T1 -9e -c "$0" >"$1"; fi'
  [[ -e $OUTDIR/raw/versions.txt ]] && cp "$OUTDIR/raw/versions.txt" "$S/versions.txt"
  ls -la "$S"/ncu "$S"/ncu/oracle "$S"/nsys "$S"/nsys/oracle >&2
}

for st in $STAGES; do
  log "=== stage $st"
  "stage_$st"
done
log "=== done; failures:"
cat "$FAILED" >&2

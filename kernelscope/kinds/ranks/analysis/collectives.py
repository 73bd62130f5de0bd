"""Which events of a rank are communication, and which of them are collectives.

Three sources, in this order of preference (a rank uses the first it has):

- ``nccl``: NCCL kernels on the GPU (``ncclDevKernel_AllReduce_Sum_f32_RING_LL``,
  ``ncclKernel_AllReduce_RING_LL_Sum_float``, ``ncclDevKernel_SendRecv``…). The operation is
  the word after the prefix. A rank *arrives* when its kernel starts: NCCL kernels spin on
  the GPU until every peer has joined, so an early rank's kernel runs long.
- ``mpi``: MPI calls traced by ``nsys --trace=mpi`` (the ``MPI_*_EVENTS`` tables), e.g.
  ``MPI_Allreduce``; a rank arrives when it enters the call.
- ``nvtx``: NVTX ranges named like a collective (``allreduce``, ``all_gather``,
  ``reduce_scatter``, ``broadcast``, ``barrier``, ``gloo…``, ``nccl…``), for backends that run
  on the CPU such as gloo; a rank arrives when it opens the range.

Each call also carries what identifies it across ranks (``key``; docs/ranks.md): the NCCL
kernel's name after its prefix (operation, reduction, dtype, algorithm and protocol), the MPI
call's or the NVTX range's name; a PyTorch trace's calls carry the process group, collective,
message size and dtype it records (``kinds/ranks/analysis/kineto_reduce.py``), and newer
PyTorch's sequence number (``recorded_seq``). ``matching.py`` pairs calls across ranks by it.

Point-to-point transfers (NCCL ``SendRecv``/``Send``/``Recv``, ``MPI_Send``/``Recv``/
``Sendrecv``/``Wait``…) count as communication time but are not collectives: not every rank
takes part, so nobody is "last".
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

SOURCES = ("nccl", "mpi", "backend", "nvtx")
"""Where communication is read from, most precise first (``backend``: the ranges a PyTorch
backend records around each collective, ``gloo:all_reduce``)."""
NCCL_KERNEL = r"(?:^|\s)nccl(?:Dev)?Kernel_([A-Za-z0-9]+)"
NCCL_P2P = ("SendRecv", "Send", "Recv")
MPI_COMM = (
    r"^MPI_(?:I|P)?(?:Send|Recv|Sendrecv(?:_replace)?|Bsend|Ssend|Rsend|Wait\w*|Test\w*|"
    r"Probe|Iprobe|Mprobe|Mrecv|Allreduce|Reduce|Bcast|Barrier|Allgatherv?|Gatherv?|"
    r"Scatterv?|Alltoall[vw]?|Reduce_scatter(?:_block)?|Scan|Exscan|Neighbor_\w+|Put|Get|"
    r"Accumulate|Get_accumulate|Fetch_and_op|Compare_and_swap|Win_fence|Win_lock\w*|"
    r"Win_unlock\w*|Win_flush\w*|Win_wait|Win_complete|Start|Startall)$"
)
MPI_COLLECTIVE = (
    r"^MPI_(?:Allreduce|Reduce|Bcast|Barrier|Allgatherv?|Gatherv?|Scatterv?|Alltoall[vw]?|"
    r"Reduce_scatter(?:_block)?|Scan|Exscan)$"
)
NVTX_COLLECTIVE = (
    r"(?i)(all[_ -]?reduce|all[_ -]?gather|reduce[_ -]?scatter|all[_ -]?to[_ -]?all|"
    r"broadcast|\bbarrier\b|\bnccl|\bgloo\b|^mpi_\w+)"
)
NCCL_KEY = r"(?:^|\s)nccl(?:Dev)?Kernel_(\w+)"
COLLECTIVE_SCHEMA = {"op": pl.String, "seq": pl.Int64, "start": pl.Int64, "end": pl.Int64,
                     "global_tid": pl.Int64, "collective": pl.Boolean, "key": pl.String,
                     "recorded_seq": pl.Int64}


def nccl_op(name: pl.Expr) -> pl.Expr:
    """The NCCL operation in a kernel name (``AllReduce``), null for other kernels."""
    return name.str.extract(NCCL_KERNEL, 1)


def numbered(df: pl.DataFrame) -> pl.DataFrame:
    """Add ``seq``: the 0-based order of each call among the rank's calls of the same op (a
    ``key`` defaults to the op, ``recorded_seq`` to none)."""
    if "key" not in df.columns:
        df = df.with_columns(pl.col("op").alias("key"))
    if "recorded_seq" not in df.columns:
        df = df.with_columns(pl.lit(None, pl.Int64).alias("recorded_seq"))
    return (df.sort("start")
            .with_columns(pl.int_range(pl.len()).over("op").cast(pl.Int64).alias("seq"))
            .select(list(COLLECTIVE_SCHEMA)).cast(COLLECTIVE_SCHEMA))  # type: ignore[arg-type]


def nccl_calls(kernels: pl.DataFrame) -> pl.DataFrame:
    """NCCL kernels as communication calls (kernels need a string ``name``)."""
    calls = kernels.select(
        "start", "end", pl.lit(None, pl.Int64).alias("global_tid"),
        nccl_op(pl.col("name")).alias("op"),
        pl.col("name").str.extract(NCCL_KEY, 1).alias("key"),
    ).filter(pl.col("op").is_not_null())
    return numbered(calls.with_columns(
        (~pl.col("op").is_in(NCCL_P2P)).alias("collective")))


def mpi_calls(mpi: pl.DataFrame) -> pl.DataFrame:
    """MPI communication calls; ``collective`` marks the blocking collectives."""
    calls = mpi.filter(pl.col("name").str.contains(MPI_COMM)).select(
        "start", "end", "global_tid", pl.col("name").alias("op"),
        pl.col("name").str.contains(MPI_COLLECTIVE).alias("collective"),
    )
    return numbered(calls)


def nvtx_calls(ranges: pl.DataFrame) -> pl.DataFrame:
    """NVTX ranges named like a collective (``ranges`` from ``nvtx_ranges``: ``range`` is
    ``domain:message``)."""
    name = pl.col("range").str.strip_prefix(":")
    calls = ranges.filter(name.str.contains(NVTX_COLLECTIVE)).select(
        "start", "end", "global_tid", name.alias("op"), pl.lit(True).alias("collective"))
    return numbered(calls)


def communication(kernels: pl.DataFrame, mpi: pl.DataFrame, ranges: pl.DataFrame,
                  identified: tuple[str, pl.DataFrame] | None = None
                  ) -> tuple[str | None, pl.DataFrame]:
    """The rank's communication calls from its preferred source, and that source's name
    (None when the rank shows no communication at all). ``identified``: calls a trace
    already named (a PyTorch trace's, with their metadata), taken first when it has any."""
    if identified is not None and identified[1].height:
        return identified[0], numbered(identified[1])
    readers: tuple[tuple[str, Callable[[pl.DataFrame], pl.DataFrame], pl.DataFrame], ...] = (
        ("nccl", nccl_calls, kernels), ("mpi", mpi_calls, mpi), ("nvtx", nvtx_calls, ranges))
    for source, read, frame in readers:
        found = read(frame)
        if found.height:
            return source, found
    return None, pl.DataFrame(schema=COLLECTIVE_SCHEMA)

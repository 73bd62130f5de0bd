"""PyTorch profiler (Kineto) traces, one trace or a run of per-rank traces."""

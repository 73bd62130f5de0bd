"""kernelscope: read Nsight Compute and Nsight Systems reports in the terminal."""

__version__ = "0.1.0"

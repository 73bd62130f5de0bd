"""This kind's readers and model: plain objects and polars frames."""

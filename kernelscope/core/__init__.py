"""The shared vocabulary every layer may import, the model included: how numbers, units,
durations and shares are written (``units``, ``durations``, ``shares``), the words for
things (``words``), severities (``severity``), each kind's thresholds (``thresholds``) and
the one options object (``options``). Nothing here imports Textual, rich or another
kernelscope package."""

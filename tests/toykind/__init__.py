"""A toy kind of report, added the way any kind is: this one package plus one registration.

A toy report is a text file that starts with ``TOYREPORT`` and then holds ``name,value`` lines.
``model`` reads it (a kind's ``model``), ``render`` writes its summary and its renderers (a
kind's ``export``) and ``tui`` shows it (a kind's ``screens``). ``TOY`` and ``TOY_DIFF`` are the
registrations: the second compares two toy reports (``kernelscope toydiff A B``).
"""

from kernelscope.kinds import KindSpec

TOY = KindSpec(
    name="toy",
    title="toy report",
    detect=lambda probe: probe.head.startswith(b"TOYREPORT"),
    open="tests.toykind.model:open_toy",
    analyse="tests.toykind.model:analyse_toy",
    summary="tests.toykind.render:print_toy_summary",
    renderers={fmt: f"tests.toykind.render:render_toy_{fmt}" for fmt in ("json", "md", "csv")},
    session="tests.toykind.tui:ToySession",
)

TOY_DIFF = KindSpec(
    name="toydiff",
    title="toy diff",
    detect=lambda probe: False,
    open="tests.toykind.model:open_toy_pair",
    analyse="tests.toykind.model:analyse_pair",
    summary="tests.toykind.render:print_toy_summary",
    renderers={fmt: f"tests.toykind.render:render_toy_{fmt}" for fmt in ("md", "json")},
    session="tests.toykind.tui:ToySession",
    subcommand="toydiff",
    inputs=(2, 2),
)

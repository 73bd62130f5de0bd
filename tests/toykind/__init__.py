"""A toy kind of report, added the way any kind is: this one package plus one registration.

A toy report is a text file that starts with ``TOYREPORT`` and then holds ``name,value`` lines.
``model`` reads it (the ``parsers`` part), ``render`` writes its summary and exports (the
``export`` part) and ``tui`` shows it (the ``screens`` part). ``TOY`` and ``TOY_DIFF`` are the
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
    export="tests.toykind.render:render_toy",
    session="tests.toykind.tui:ToySession",
)

TOY_DIFF = KindSpec(
    name="toydiff",
    title="toy diff",
    detect=lambda probe: False,
    open="tests.toykind.model:open_toy_pair",
    analyse="tests.toykind.model:analyse_pair",
    summary="tests.toykind.render:print_toy_summary",
    export="tests.toykind.render:render_toy",
    session="tests.toykind.tui:ToySession",
    formats=("md", "json"),
    subcommand="toydiff",
    inputs=(2, 2),
)

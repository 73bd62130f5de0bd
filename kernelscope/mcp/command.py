"""The ``kernelscope mcp`` command line: the roots, then the server (which needs the SDK:
``pip install '.[mcp]'`` in the clone)."""

from __future__ import annotations

import argparse

from kernelscope.core.errors import ReportError


def main(argv: list[str]) -> int:
    """``kernelscope mcp [--root DIR]...``: serve until the client closes standard input."""
    parser = argparse.ArgumentParser(
        prog="kernelscope mcp",
        description="Serve kernelscope's analyses as Model Context Protocol tools over "
        "stdio, reading only files under the roots.",
    )
    parser.add_argument("--root", action="append", default=[], metavar="DIR",
                        help="a folder whose reports the server may read (repeat for more; "
                        "default: the working directory)")
    args = parser.parse_args(argv)
    from kernelscope.mcp.roots import Roots

    roots = Roots.of(args.root)
    try:
        from kernelscope.mcp.server import build_server
    except ImportError as exc:
        raise ReportError(
            f"kernelscope mcp needs the MCP SDK ({exc.name or 'mcp'} is missing): "
            "pip install '.[mcp]' in kernelscope's clone (or pip install 'mcp>=2.3,<3')."
        ) from exc
    build_server(roots).run("stdio")
    return 0

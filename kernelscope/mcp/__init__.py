"""``kernelscope mcp``: every analysis as Model Context Protocol tools, over stdio.

An app-shell package beside ``tui/cli.py``: it imports ``export``, ``kinds``, ``timeline``
and ``core``, never Textual. ``server.py`` declares the tools, resources and prompts on the SDK's
``MCPServer``; each call runs in a fresh worker process (``isolation.py`` starts
``worker.py``), which opens the report, answers through ``answers.py`` (the JSON exports'
own functions, trimmed and paged by ``paging.py``) and exits, so the server's memory does not
grow with the reports it has opened and a cancelled call's work is killed. ``roots.py`` keeps
every path inside the folders the server was started with.
"""

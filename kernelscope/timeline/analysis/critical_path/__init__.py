"""What a step waits on: the dependency graph of a timeline (``graph``), its schedule
(``schedule``), the critical path of every step (``path``), and what-if answers (``whatif``).
The model and its limits are in docs/critical_path.md."""

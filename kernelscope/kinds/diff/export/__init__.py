"""This kind's exports: Markdown, JSON, CSV, summary (never Textual)."""

"""This kind's text and charts (rich, never Textual)."""

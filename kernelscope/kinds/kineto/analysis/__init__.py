"""This kind's analyses over its model (no Textual, no rich)."""

"""This kind's session and Textual screens."""

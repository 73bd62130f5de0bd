"""The shared UI: the session framework, generic screens and widgets."""

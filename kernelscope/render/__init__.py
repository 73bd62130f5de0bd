"""Text rendering shared by the screens and the exports (rich at most, never Textual):
ncu-style numbers and units, and NCU's rule-message markup."""

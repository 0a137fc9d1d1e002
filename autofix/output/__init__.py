"""Output formats beyond plain JSON: the terminal's text, SARIF, GitHub annotations.

Each module turns findings into strings; only `autofix.cli` prints them. They
are imported when their format is chosen, so a plain check loads none of the
others (and nothing here imports a JSON Schema library).
"""

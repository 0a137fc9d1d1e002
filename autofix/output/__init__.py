"""Output formats beyond plain JSON: the terminal's text, SARIF, GitHub annotations, GitLab Code Quality,
JUnit XML, and the counts of --statistics and --show-fixes.

Each module turns findings into strings; only `autofix.cli` prints them. They
are imported when their format is chosen, so a plain check loads none of the
others (and nothing here imports a JSON Schema library).
"""

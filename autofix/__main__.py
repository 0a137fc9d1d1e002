"""`python -m autofix`: the same command as `autofix`."""

from autofix.cli import main

main(prog_name="autofix")

"""Prints what the adversarial suite tried: cases, crashes, corrupted files, properties, fuzz inputs."""

from __future__ import annotations

import adversarial_tree


def pytest_configure(config):  # noqa: ANN001, ANN201
    config.addinivalue_line("markers", "scale: many-file runs (AUTOFIX_SCALE_FILES sets how many; CI: 2,000)")


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ANN001, ANN201, ARG001
    stats = adversarial_tree.STATS
    if any(stats.values()):
        terminalreporter.write_sep("-", "autofix adversarial figures")
        terminalreporter.write_line(", ".join(f"{key}: {value}" for key, value in stats.items()))

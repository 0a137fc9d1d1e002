"""Rules in the catalogue's shape (autofix/rules.py), one module per SGLang feature area.

Each module holds many rules, each a few lines naming its catalogue errors; they are
proven by tests/test_rules.py from their own Example and near miss, so they need no
fixture folder (fixers/*.py beside this package are one hand-written fixer each).
"""

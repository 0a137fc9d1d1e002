"""YAML files: SGLang `--config` files, argument lists in manifests, shell in scalars.

Three shapes of launch live in YAML:

- an SGLang `--config` file: a top-level mapping of option names without `--`,
  read the way SGLang's `ConfigArgumentMerger` turns it into argv tokens;
- an argument list: `command:`/`args:` of a Kubernetes container, `entrypoint:`/
  `command:` of a compose service, one argv whose items are the tokens;
- shell in a scalar: `run: |` (GitHub Actions), `script:` (GitLab CI), a
  compose `command:` string, the script of `sh -c`; the scalar's value is
  parsed as shell, with an Embedding that maps it back to the file.

ruamel.yaml composes nodes only (no tags are constructed; an alias is the
node it names, walked once) and gives each node's position; every edit is
spliced into the original text, never re-dumped. Template expressions (Helm,
Jinja) are masked before parsing: what they produce is unknown. libyaml
(ruamel.yaml.clib) composes where it gives the pure composer's nodes, several
times faster; the pure composer stays the judge of what is not YAML.
"""

from __future__ import annotations

from collections.abc import Callable

from autofix.formats.yaml.document import _parse, syntax_errors
from autofix.formats.yaml.finder import _Finder, _is_config, config_args
from autofix.formats.yaml.text import mask_templates
from autofix.knowledge.options import OptionTable
from autofix.model import Launch
from autofix.source import Source

__all__ = ["config_args", "find_launches", "syntax_errors"]


def find_launches(
    source: Source,
    table: OptionTable,
    release: str | None = None,
    model_lookup: Callable[[str], str | None] | None = None,
    expanded: bool = False,
) -> list[Launch]:
    """Launches in a YAML file; SyntaxError when it is not YAML (unless it is a template).

    expanded: the text is a shell here-document's, so the shell expands `$X`, `${X}` and `$(...)`
    in it before the file is read (a Kubernetes object fed to `kubectl apply -f -`)."""
    try:
        doc = _parse(source)
    except SyntaxError:
        if mask_templates(source.text).templated:
            return []  # a template autofix cannot read as YAML: stay quiet
        raise
    finder = _Finder(doc, table, release, model_lookup)
    finder.expanded = expanded
    if len(doc.roots) == 1 and _is_config(doc.roots[0], table):
        finder.config(doc.roots[0])
    else:
        for root in doc.roots:
            finder.walk(root)
    return sorted(finder.launches, key=lambda launch: launch.span.start)



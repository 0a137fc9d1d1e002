"""What SGLang's argparse parser reads, shared by the fixers of launch-level mistakes (SGL100-SGL119).

These mistakes are refused by `parser.parse_args` in `prepare_server_args`
before any rule runs, so they hold only where that parser reads the tokens:
`python -m sglang.launch_server`, `sglang serve` (when it picks the language
model server) and a `--config` file merged into either. `sgl.Engine(**kw)` and
`ServerArgs(**kw)` never meet argparse.

A launch whose release is unknown may run on any release autofix has a table
for: a flag or value is wrong there only when it is wrong in every one of them.
"""

from __future__ import annotations


import difflib
import json
import re
from collections.abc import Iterable, Sequence
from functools import cache
from importlib import resources

from autofix.edits import Edit
from autofix.knowledge.options import Option, OptionTable, all_tables
from autofix.knowledge.releases import parse_release
from autofix.model import Arg, Flag, Launch

# How the tokens reach argparse: the launch forms the format modules name.
PARSED_FORMS = frozenset({"launch_server", "router", "serve", "config"})


def parsed_by_sglang(launch: Launch) -> bool:
    """Whether SGLang's server parser reads this launch's tokens as autofix read them."""
    if launch.form not in PARSED_FORMS:
        return False
    texts = [arg.text for arg in launch.args]
    if "-h" in texts or "--help" in texts:
        return False  # argparse prints the help and exits before any check
    if launch.form == "serve":
        # `sglang serve` takes `--model-type` out of argv, and hands a diffusion
        # model's argv to another parser: only a model known to be a language
        # model (one whose MLA-ness autofix knows) reaches SGLang's server parser.
        if any(t is not None and (t == "--model-type" or t.startswith("--model-type=")) for t in texts):
            return False
        if launch.model.mla is None:
            return False
    return True


def router_option(launch: Launch, flag: Flag) -> bool:
    """An option `python -m sglang_router.launch_server` adds to SGLang's own (`--router-policy`,
    `--router-dp-worker-base-port`): its parser is SGLang's with the router's options prefixed
    `--router-`, so such a flag, or a prefix that may stand for one, is the router's to judge."""
    return launch.form == "router" and "--router-".startswith(flag.spelling[:9]) and len(flag.spelling) > 2


def tables_for(launch: Launch) -> tuple[OptionTable, ...]:
    """The tables the launch may run on: its pinned release's, else every release's."""
    return (launch.table,) if launch.release is not None else all_tables()


def release_name(launch: Launch) -> str:
    return f"SGLang {launch.release}" if launch.release is not None else "any SGLang release"


def in_config_file(flag: Flag) -> bool:
    """Whether the flag is a key of a `--config` YAML file."""
    return bool(getattr(flag.name.container, "config_file", False))


def underscore_config(launch: Launch, flag: Flag) -> bool:
    """Whether flag is a key of a `--config` file written all in underscores, as a fork's are.

    SGLang's own merger refuses `tp_size:`, but some forks read their config
    files so: a file whose every key that names an option when dashed (two or
    more of them, `port:` counting for neither spelling) is underscore-spelled
    is that fork's file, not a slip. One dashed key among them
    (`mem-fraction-static:` beside `tp_size:`) shows the file is written for
    SGLang, and its underscore keys are slips.
    """
    if not in_config_file(flag):
        return False
    container = flag.name.container
    keys = [f.spelling[2:] for f in launch.flags if f.name.container is container]
    spelt = [k for k in keys
             if ("_" in k or "-" in k) and isinstance(launch.table.lookup("--" + k.replace("_", "-")), tuple)]
    return len(spelt) >= 2 and all("-" not in k for k in spelt)


def exact(table: OptionTable, spelling: str) -> Option | None:
    """The option spelled exactly so in table (not by a prefix)."""
    found = table.lookup(spelling)
    return found[0] if isinstance(found, tuple) and found[1] == spelling else None


def older_tables(launch: Launch) -> list[OptionTable]:
    """Tables of the releases before the launch's pinned one, newest first."""
    if launch.release is None:
        return []
    pinned = parse_release(launch.release)
    return [t for t in reversed(all_tables()) if parse_release(t.release) < pinned]  # type: ignore[operator]


def value_count(flag: Flag) -> int:
    return 1 if flag.joined else len(flag.values)


def value_texts(flag: Flag) -> list[str] | None:
    """The values as written, or None when one of them is unknown."""
    if flag.joined:
        text = flag.name.text
        return None if text is None else [text.split("=", 1)[1]]
    if any(v.text is None or v.splat for v in flag.values):
        return None
    return [v.text for v in flag.values]  # type: ignore[misc]


def accepts(option: Option, values: Sequence[str] | None, count: int) -> bool:
    """Whether option would take these values, as argparse counts and converts them."""
    if not option.takes_value:
        return count == 0 and option.is_boolean
    nargs = option.nargs
    if nargs is None and count != 1 or nargs == "?" and count > 1 or nargs == "+" and count < 1:
        return False
    if isinstance(nargs, int) and count != nargs:
        return False
    if values is None:
        return True
    if option.choices is not None and option.type in ("str", None):
        return all(v in option.choices for v in values)
    if option.type in ("int", "float"):
        try:
            [int(v) if option.type == "int" else float(v) for v in values]
        except ValueError:
            return False
    return True


def close(word: str, candidates: Iterable[str], cutoff: float = 0.8) -> list[str]:
    return difflib.get_close_matches(word, list(candidates), n=4, cutoff=cutoff)


def near_misses(spelling: str, options: Iterable[str]) -> list[str]:
    """The long options that spelling is a slip of (see `is_near_miss`), at most four."""
    return [o for o in options if is_near_miss(spelling, o)][:4]


def is_near_miss(spelling: str, option: str) -> bool:
    """Whether spelling is option written with a slip, not another option's name.

    Read word by word (the words between dashes, underscores read as dashes,
    case ignored), a slip is one of: the same words joined or split
    differently (`--kvcache-dtype`); the same words in another order
    (`--static-mem-fraction`); or the same words but one, and that one
    misspelt by one letter added, dropped, changed or swapped with its
    neighbour where both spellings have at least four letters
    (`--kv-cache-type`, `--context-lenght`), or cut short to at least three
    (`--mem-frac-static`). A word missing or added (`--disable-prefill-graph`
    for `--disable-prefill-cuda-graph`), two words changed (`--enable-tbo`
    for `--enable-eplb`) or a short word changed (`--attn-tp-size` for
    `--attn-dp-size`, `--app-key` for `--api-key`) names another option:
    forks of SGLang add options spelt so, and reading them as typos would
    rename them to unrelated ones. tests/data/near_misses.toml holds the
    measurement: fork options found in public code, the options of the
    corpus's launches, and typos of each kind.
    """
    written = spelling.lstrip("-").replace("_", "-").lower().split("-")
    words = option.lstrip("-").split("-")
    if written == words or "".join(written) == "".join(words) or sorted(written) == sorted(words):
        return True
    if len(written) != len(words):
        return False
    changed = [(w, o) for w, o in zip(written, words) if w != o]
    return len(changed) == 1 and _misspelt(*changed[0])


def _misspelt(word: str, meant: str) -> bool:
    """One letter added, dropped, changed or swapped in words of four letters or more; or meant cut short."""
    if len(word) < len(meant) and len(word) >= 3 and meant.startswith(word):
        return True
    if min(len(word), len(meant)) < 4:
        return False
    if len(word) == len(meant):
        at = [i for i, (a, b) in enumerate(zip(word, meant)) if a != b]
        swapped = len(at) == 2 and at[1] == at[0] + 1 and word[at[0]] == meant[at[1]] and word[at[1]] == meant[at[0]]
        return len(at) == 1 or swapped
    short, long = sorted((word, meant), key=len)
    return len(long) - len(short) == 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def listing(words: Sequence[str]) -> str:
    quoted = [f"`{w}`" for w in words]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


# -- reading a token as argparse does (SGL106-SGL112) -------------------------------

# argparse's `_negative_number_matcher`: such a word is a value, not an option.
NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


def looks_like_option(text: str) -> bool:
    """Whether argparse reads the word as an option string ('O'), never as a value.

    A word that starts with '-' is an option unless it is '-' alone, a negative
    number, or holds a space (argparse's `_parse_optional`); '--' ends the options.
    """
    return text.startswith("-") and text not in ("-", "--") and not NEGATIVE_NUMBER.match(text) and " " not in text


def next_arg(launch: Launch, arg: Arg) -> Arg | None:
    """The token right after arg in the launch, or None when arg is the last."""
    for i, other in enumerate(launch.args):
        if other is arg:
            return launch.args[i + 1] if i + 1 < len(launch.args) else None
    return None


def may_continue(launch: Launch) -> bool:
    """Whether more tokens may follow the launch's last one when it runs.

    An exec-form Dockerfile `ENTRYPOINT [...]` takes `docker run`'s arguments
    after its own, so a launch written there may end mid-flag.
    """
    last = launch.args[-1] if launch.args else None
    container = last.container if last is not None else None
    return bool(getattr(container, "continues", False))


def resolutions(launch: Launch, flag: Flag) -> list[Option | None]:
    """The option flag's spelling names in each release the launch may run on (None: none there)."""
    found = [t.lookup(flag.spelling) for t in tables_for(launch)]
    return [f[0] if isinstance(f, tuple) else None for f in found]


def remove_args(args: Sequence[Arg]) -> tuple[Edit, ...]:
    """Edits that remove a run of tokens written in one container; nothing when one cannot be edited."""
    if not args or any(not a.editable or a.container is None for a in args):
        return ()
    container = args[0].container
    if any(a.container is not container for a in args):
        return ()
    return container.remove(args)  # type: ignore[union-attr]


@cache
def required_dests(release: str) -> frozenset[str]:
    """The dests argparse requires in release (`required: true` in its option table)."""
    path = resources.files("autofix.knowledge").joinpath(f"data/options-{release}.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(o["dest"] for o in document["options"] if o.get("required"))

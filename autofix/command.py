"""What a command line runs: the one recogniser every format asks.

A format reads a command into argv texts (None where a word cannot be known:
`$PORT`, `$(which python)`, a Jinja field) and asks `recognise` what it runs:

- an SGLang entry point (`Entry`): `python -m sglang.launch_server`,
  `python -m sglang_router.launch_server` (SGLang's server options plus the
  router's `--router-*` ones), `sglang serve`, with the interpreter named or in a
  variable (`"$PYTHON" -m sglang.launch_server`);
- a shell script (`Script`): `bash -lc SCRIPT`, `sh -ec SCRIPT`, `ssh HOST SCRIPT`,
  which the format reads as shell text of its own;
- or nothing SGLang reads (None).

In front of the entry point stand wrappers, each skipped with its own options
so that an option's value is never taken for the program (`docker run --name
sglang IMAGE ...`) and an unknown value among a wrapper's options says nothing
about SGLang's flags: container runners (docker, podman, nerdctl `run`/`exec`,
`docker compose run`/`exec`, `kubectl exec ... --`, apptainer and singularity
`exec`/`run`), `ssh HOST`, and the commands that run their arguments (`nohup`,
`env`, `timeout`, `numactl`, `taskset`, `stdbuf`, `setsid`, `exec`, `time`,
`sudo`, `chrt`, `nice`, `ionice`). Any other program in front (srun, mpirun,
torchrun, uv run, conda run, pixi run, a site's own launcher) is taken to run
what follows it, and the entry point is looked for among its arguments.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["Entry", "Script", "reads_stdin_script", "recognise"]

Texts = Sequence[str | None]


@dataclass(frozen=True, slots=True)
class Entry:
    """An SGLang entry point: its arguments start at texts[index]."""

    index: int
    form: str  # "launch_server", "router" or "serve"
    wrappers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Script:
    """A shell script: texts[index] holds it."""

    index: int
    wrappers: tuple[str, ...] = ()


Found = Entry | Script


@dataclass(frozen=True, slots=True)
class _Hop:
    """Past a wrapper: the command it runs starts at texts[index].

    program: the program's name when the wrapper names it itself (`docker run
    --entrypoint python3 IMAGE ...`: IMAGE stands where the program would);
    scan: the wrapper's own words could not be told apart (an unknown word
    among its options), so the entry point is looked for among all that follows.
    """

    label: str
    index: int
    program: str | None = None
    scan: bool = False

# The modules `python -m` runs that read SGLang's server options.
MODULES = {"sglang.launch_server": "launch_server", "sglang_router.launch_server": "router"}
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash"})

_PYTHON = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?\Z")
_PYTHON_OPTS_WITH_VALUE = frozenset({"-X", "-W", "-Q"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Commands that print, search or signal their arguments rather than run them.
_NOT_RUNNERS = frozenset(
    "echo printf print cat grep egrep fgrep rg sed awk tee logger pkill pgrep kill killall ps "
    "which type command hash alias test [ [[ ls find wc head tail cut sort uniq tr".split()
)


def _base(text: str | None) -> str | None:
    return None if text is None else text.rsplit("/", 1)[-1]


def recognise(texts: Texts) -> Found | None:
    """What the argv texts run, or None when it is not SGLang's server."""
    return _command(texts, 0, ())


def program_at(texts: Texts) -> int | None:
    """Where the program word is when it is unknown (`$CMD`, `exec $CMD`, `nohup sudo -E $CMD`): past
    assignments and wrappers with their own options; None when the program is a known word or a
    wrapper's words cannot be told apart."""
    i = 0
    while True:
        while i < len(texts) and texts[i] is not None and _ASSIGNMENT.match(texts[i]):  # type: ignore[arg-type]
            i += 1
        if i >= len(texts):
            return None
        if texts[i] is None:
            return i
        wrapper = _WRAPPERS.get(_base(texts[i]))  # type: ignore[arg-type]
        hop = wrapper(texts, i + 1) if wrapper is not None else None
        if hop is not None and hop.scan:  # an unknown word after options only (`sudo -E $CMD`): the program
            unknown = next((k for k in range(i + 1, len(texts)) if texts[k] is None), None)
            if unknown is not None and all(t.startswith("-") for t in texts[i + 1 : unknown]):  # type: ignore[union-attr]
                return unknown
            return None
        if hop is None or hop.program is not None or hop.label == "ssh":
            return None
        i = hop.index


def reads_stdin_script(texts: Texts) -> tuple[str, ...] | None:
    """The wrappers of a command that runs the script on its standard input (`bash`, `bash -s`,
    `ssh HOST`, `docker exec -i BOX sh`), else None."""
    for tail in (["-c", "SCRIPT"], ["SCRIPT"]):
        found = recognise([*texts, *tail])
        if isinstance(found, Script) and found.index == len(texts) + len(tail) - 1:
            return found.wrappers
    return None


def _command(texts: Texts, i: int, wrappers: tuple[str, ...]) -> Found | None:
    while i < len(texts) and texts[i] is not None and _ASSIGNMENT.match(texts[i]):  # type: ignore[arg-type]
        i += 1  # `VAR=value cmd` (an argv list may carry them)
    if i >= len(texts):
        return None
    text, name = texts[i], _base(texts[i])
    if text is None or _PYTHON.match(name or ""):
        found = _python(texts, i + 1, wrappers)
        if found is not None or text is not None:
            return found
        return _scan(texts, i + 1, (*wrappers, "?"))  # an unknown program: a wrapper of its own
    if name == "sglang":
        return Entry(i + 2, "serve", wrappers) if i + 1 < len(texts) and texts[i + 1] == "serve" else None
    if name in SHELLS:
        return _shell(texts, i + 1, (*wrappers, name))
    if name in _NOT_RUNNERS:
        return None
    wrapper = _WRAPPERS.get(name)  # type: ignore[arg-type]
    if wrapper is None:  # `uv run`, `conda run`, `srun`, a site's own launcher ...
        label = f"{name} run" if i + 1 < len(texts) and texts[i + 1] == "run" else name
        return _scan(texts, i + 1, (*wrappers, label))  # type: ignore[arg-type]
    hop = wrapper(texts, i + 1)
    if hop is None:
        return None
    inner = (*wrappers, hop.label)
    if hop.scan:
        return _scan(texts, hop.index, inner)
    if hop.program is not None:
        texts = [*texts[: hop.index], hop.program, *texts[hop.index + 1 :]]
    if hop.label == "ssh":
        return _remote(texts, hop.index, inner)
    return _command(texts, hop.index, inner)


def _python(texts: Texts, j: int, wrappers: tuple[str, ...]) -> Entry | None:
    """`python [options] -m MODULE`: MODULE one of SGLang's server entry points."""
    while j < len(texts) and (texts[j] or "").startswith("-") and texts[j] != "-m":
        if texts[j] in ("-c", "-"):
            return None
        j += 2 if texts[j] in _PYTHON_OPTS_WITH_VALUE else 1
    if j + 1 < len(texts) and texts[j] == "-m" and texts[j + 1] in MODULES:
        return Entry(j + 2, MODULES[texts[j + 1]], wrappers)  # type: ignore[index]
    return None


def _scan(texts: Texts, i: int, wrappers: tuple[str, ...]) -> Found | None:
    """An entry point among the arguments of a program that runs them (srun, torchrun -m, uv run ...)."""
    for j in range(i, len(texts)):
        text, name = texts[j], _base(texts[j])
        if text in ("-m", "--module") and j + 1 < len(texts) and texts[j + 1] in MODULES:
            return Entry(j + 2, MODULES[texts[j + 1]], wrappers)  # type: ignore[index]
        if text is None or _PYTHON.match(name or ""):
            found = _python(texts, j + 1, wrappers)
            if found is not None:
                return found
        elif name == "sglang" and j + 1 < len(texts) and texts[j + 1] == "serve":
            return Entry(j + 2, "serve", wrappers)
        elif name in SHELLS:
            found = _shell(texts, j + 1, (*wrappers, name))  # type: ignore[arg-type]
            if found is not None:
                return found
    return None


_SHELL_OPTS_WITH_VALUE = frozenset({"--rcfile", "--init-file", "-o", "+o", "-O", "+O"})


def _shell(texts: Texts, j: int, wrappers: tuple[str, ...]) -> Script | None:
    """`bash [options] -c SCRIPT`: options in any order and clusters (`-lc`, `-ec`, `-o pipefail`)."""
    seen_c = False
    while j < len(texts):
        text = texts[j]
        if text is None or not text.startswith(("-", "+")) or text in ("-", "--"):
            break
        if text in _SHELL_OPTS_WITH_VALUE or not text.startswith("--") and text[-1] in "oO":
            j += 2
            continue
        seen_c = seen_c or not text.startswith("--") and "c" in text[1:]
        j += 1
    if seen_c and j < len(texts) and texts[j] == "--":
        j += 1
    return Script(j, wrappers) if seen_c and j < len(texts) else None


def _remote(texts: Texts, j: int, wrappers: tuple[str, ...]) -> Found | None:
    """`ssh HOST COMMAND`: one word is a script for the remote shell; several words, the command itself."""
    if j >= len(texts):
        return None
    if j + 1 == len(texts):
        return Script(j, wrappers)
    return _command(texts, j, wrappers)


# -- wrappers: where the command they run starts -----------------------------------


def _options(texts: Texts, j: int, valued: frozenset[str], flags: frozenset[str] = frozenset(),
             short_valued: str = "", everything_valued: bool = False) -> int | None:
    """The index after a run of options; None when an unknown word stands where an option may be.

    valued: long (and short) options that take the next word unless written `--opt=value`;
    flags: options that take none (with everything_valued, every other long option takes one);
    short_valued: letters of short options that take a value (`-e X`, `-eX`, `-ite X`).
    """
    while j < len(texts):
        text = texts[j]
        if text is None:
            return None
        if text == "--":
            return j + 1
        if not text.startswith("-") or text == "-":
            return j
        if text.startswith("--"):
            name = text.split("=", 1)[0]
            takes = "=" not in text and (name in valued or everything_valued and name not in flags)
            j += 2 if takes else 1
            continue
        if text in valued:
            j += 2
            continue
        # A cluster of short options: the first that takes a value ends it, with the rest or the next word.
        cluster = text[1:]
        k = next((n for n, ch in enumerate(cluster) if ch in short_valued), None)
        j += 2 if k is not None and k == len(cluster) - 1 else 1
    return j


_DOCKER_GLOBAL = frozenset({"-H", "--host", "-c", "--context", "-l", "--log-level", "--config",
                            "--tlscacert", "--tlscert", "--tlskey"})
# docker's CLI reference: the options of `docker run` that take no value (every other one takes one).
_DOCKER_RUN_FLAGS = frozenset({
    "--detach", "--interactive", "--tty", "--rm", "--privileged", "--init", "--publish-all", "--read-only",
    "--sig-proxy", "--oom-kill-disable", "--no-healthcheck", "--quiet", "--disable-content-trust", "--help",
    "--use-api-socket", "--no-TTY", "--no-deps", "--service-ports", "--use-aliases", "--build",
    "--remove-orphans", "--quiet-pull", "--quiet-build", "--no-healthcheck",
})
_DOCKER_RUN_SHORT = "acehlmpuvw"  # -a -c -e -h -l -m -p -u -v -w take a value
_DOCKER_EXEC_SHORT = "euw"
_COMPOSE_GLOBAL = frozenset({"-f", "--file", "-p", "--project-name", "--profile", "--env-file",
                             "--project-directory", "--ansi", "--parallel", "--progress"})


def _docker(texts: Texts, j: int) -> _Hop | None:
    """`docker [global options] [container] run|exec OPTIONS IMAGE|CONTAINER COMMAND...`."""
    tool = _base(texts[j - 1]) or "docker"
    at = _options(texts, j, _DOCKER_GLOBAL)
    if at is None or at >= len(texts):
        return None
    verb = texts[at]
    if verb == "container" and at + 1 < len(texts):
        at, verb = at + 1, texts[at + 1]
    if verb == "compose":
        return _compose(texts, at + 1, f"{tool} compose")
    if verb not in ("run", "exec"):
        return None
    return _container(texts, at + 1, f"{tool} {verb}", _DOCKER_RUN_SHORT if verb == "run" else _DOCKER_EXEC_SHORT)


def _container(texts: Texts, j: int, label: str, short: str) -> _Hop:
    """Past the options of a container runner and its IMAGE, CONTAINER or SERVICE."""
    at = _options(texts, j, frozenset(), _DOCKER_RUN_FLAGS, short, everything_valued=True)
    if at is None or at >= len(texts):
        return _Hop(label, j, scan=True)
    program = _entrypoint(texts, j, at)
    if program is not None:
        return _Hop(label, at, program=program)  # IMAGE's word stands where the program would
    return _Hop(label, at + 1)


def _entrypoint(texts: Texts, start: int, image: int) -> str | None:
    """The program `--entrypoint` names among a runner's options (IMAGE's word then stands for it)."""
    for k in range(start, image):
        text = texts[k]
        if text == "--entrypoint":
            return texts[k + 1]
        if text is not None and text.startswith("--entrypoint="):
            return text.split("=", 1)[1]
    return None


def _compose(texts: Texts, j: int, label: str | None = None) -> _Hop | None:
    """`docker compose [options] run|exec OPTIONS SERVICE COMMAND...` (and `docker-compose`)."""
    label = label or _base(texts[j - 1]) or "docker-compose"
    at = _options(texts, j, _COMPOSE_GLOBAL)
    if at is None or at >= len(texts) or texts[at] not in ("run", "exec"):
        return None
    verb = texts[at]
    return _container(texts, at + 1, f"{label} {verb}", "elpuvw" if verb == "run" else "euw")


def _kubectl(texts: Texts, j: int) -> _Hop | None:
    """`kubectl [options] exec ... -- COMMAND` (the command follows the `--`)."""
    rest = list(texts[j:])
    if "exec" not in rest or "--" not in rest:
        return None
    return _Hop(f"{_base(texts[j - 1])} exec", j + rest.index("--") + 1)


_APPTAINER_VALUED = frozenset({
    "-B", "--bind", "--env", "--env-file", "-H", "--home", "-o", "--overlay", "--pwd", "-W", "--workdir",
    "-S", "--scratch", "--security", "--network", "--network-args", "--apply-cgroups", "--app",
    "--fusemount", "--mount", "--hostname", "--dns", "--cpus", "--memory", "--oci",
})


def _apptainer(texts: Texts, j: int) -> _Hop | None:
    """`apptainer exec|run [options] IMAGE COMMAND...`."""
    if j >= len(texts) or texts[j] not in ("exec", "run"):
        return None
    label = f"{_base(texts[j - 1])} {texts[j]}"
    at = _options(texts, j + 1, _APPTAINER_VALUED, short_valued="BHoWS")
    if at is None or at >= len(texts):
        return _Hop(label, j + 1, scan=True)
    return _Hop(label, at + 1)  # past IMAGE


_SSH_SHORT = "bcDEeFIiJLlmOopQRSWwB"


def _ssh(texts: Texts, j: int) -> _Hop | None:
    at = _options(texts, j, frozenset(), short_valued=_SSH_SHORT)
    if at is None or at >= len(texts):
        return None
    return _Hop("ssh", at + 1)  # past HOST


def _simple(valued: frozenset[str] = frozenset(), short: str = "", leading: int = 0,
            assignments: bool = False) -> Callable[[Texts, int], _Hop | None]:
    """A command that runs its arguments after its options (and `leading` words of its own:
    timeout's DURATION, taskset's MASK unless `-c LIST` stands for it)."""

    def skip(texts: Texts, j: int) -> _Hop | None:
        label = _base(texts[j - 1]) or ""
        at = _options(texts, j, valued, short_valued=short)
        if at is None:
            return _Hop(label, j, scan=True)
        if not (label == "taskset" and any(t in ("-c", "--cpu-list") for t in texts[j:at])):
            at += leading
        while assignments and at < len(texts) and texts[at] is not None and _ASSIGNMENT.match(texts[at]):  # type: ignore[arg-type]
            at += 1
        return _Hop(label, at)

    return skip


_WRAPPERS: dict[str, Callable[[Texts, int], _Hop | None]] = {
    "docker": _docker, "podman": _docker, "nerdctl": _docker,
    "docker-compose": _compose, "podman-compose": _compose,
    "kubectl": _kubectl, "oc": _kubectl,
    "apptainer": _apptainer, "singularity": _apptainer,
    "ssh": _ssh,
    "nohup": _simple(), "setsid": _simple(), "exec": _simple(frozenset({"-a"})), "time": _simple(short="fo"),
    "env": _simple(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}), "uCS", assignments=True),
    "sudo": _simple(frozenset({"-u", "--user", "-g", "--group", "-h", "--host", "-C", "-D", "-R", "-T"}), "ugCDRTh"),
    "timeout": _simple(frozenset({"-s", "--signal", "-k", "--kill-after"}), "sk", leading=1),
    "numactl": _simple(frozenset({"-N", "-m", "-C", "-p", "-i", "-P", "-w"}), "NmCpiPw"),
    "taskset": _simple(frozenset({"-c", "--cpu-list"}), leading=1),
    "stdbuf": _simple(frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), "ioe"),
    "chrt": _simple(leading=1), "nice": _simple(frozenset({"-n", "--adjustment"}), "n"),
    "ionice": _simple(frozenset({"-c", "-n", "-t"}), "cn"),
}

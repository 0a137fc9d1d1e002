"""The file system edge: which files to check, reading them, writing them atomically,
and what the files beside a launch say (a pinned SGLang release). A model's config.json:
autofix.modelconfigs.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from autofix.config import DEFAULT_EXCLUDE, Config, Resolver
from autofix.formats import FormatSpec, detect
from autofix.knowledge.releases import release_of
from autofix.pipeline import Linked, config_references, release_in_text
from autofix.source import DecodeError, Source

__all__ = [
    "Candidate", "ConfigIndex", "ConfigReader", "display", "may_be_config", "neighbour_release", "read_regular",
    "NotWritten", "read_identified", "remember", "real_path", "resolved_roots", "stale_temps", "walk", "write_atomic",
]

HEAD_BYTES = 128
CONFIG_YAML_LIMIT = 1 << 20
# How many files a search for the launches that read a config file looks at, at most.
INDEX_LIMIT = 20_000


@dataclass(frozen=True, slots=True)
class Candidate:
    path: Path
    spec: FormatSpec | None  # None: given explicitly but of no known kind
    skip: str | None = None  # why a walk does not check this file (reported, not read)
    note: str | None = None  # what the walk did about a file that is not checked (a stale temp file removed)
    error: bool = False  # the note is an error (a folder that cannot be read)


def walk(paths: Sequence[Path], resolver: Resolver | None = None, force_exclude: bool = False,
         clean: bool = False) -> Iterator[Candidate]:
    """Files to check: explicit files as given, folders walked.

    A walk skips what the configuration of each folder excludes, what a
    `.gitignore` excludes, symlinked folders and virtual environments. An
    explicit file is checked even when excluded, unless force_exclude (as
    ruff's --force-exclude, for pre-commit, which names every file).
    clean: remove the temp files an interrupted run of autofix left (stale_temps)
    in the folders walked and beside the files named; each is a Candidate with a note.
    """
    excluded = resolver.excludes if resolver is not None else _DEFAULTS.excludes
    config_of = resolver.for_dir if resolver is not None else lambda folder, names=None: _DEFAULTS
    for path in paths:
        if force_exclude and _explicitly_excluded(path, excluded):
            continue
        if path.is_dir():
            yield from _walk_dir(path, config_of, clean)
        else:
            if clean:
                folder = os.path.dirname(path) or "."
                try:
                    names = [n for n in os.listdir(folder) if n.startswith("." + path.name + ".")]
                except OSError:
                    names = []
                yield from (Candidate(Path(t), None, note=_REMOVED) for t in stale_temps(folder, names))
            yield Candidate(path, _spec_of(path))


_DEFAULTS = Config()


def _explicitly_excluded(path: Path, excluded: Callable[[Path, bool], bool]) -> bool:
    """Whether path, or a folder on the way to it, is excluded.

    The folders looked at are those written in path, or for an absolute path
    those inside the working directory.
    """
    absolute = Path(os.path.abspath(path))
    if path.is_absolute():
        try:
            parts = absolute.relative_to(Path.cwd().resolve()).parts
            base = Path.cwd().resolve()
        except ValueError:
            parts, base = (), absolute
    else:
        parts, base = Path(os.path.normpath(path)).parts, Path.cwd()
    folder = base
    for part in parts[:-1]:
        if part in ("", ".", ".."):
            folder = folder / part
            continue
        folder = folder / part
        if excluded(folder, True):
            return True
    return excluded(absolute, absolute.is_dir())


def _gitignore_spec(lines: Sequence[str]):  # noqa: ANN202 - pathspec.GitIgnoreSpec
    """Gitignore-style patterns; pathspec is imported only when there are some.

    A line git would ignore as invalid (`!`, a trailing backslash, `[z-a]`) is skipped, as git skips it.
    """
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - pathspec's pattern errors, re.error among them
        good = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except Exception:  # noqa: BLE001
                continue
            good.append(line)
        return pathspec.GitIgnoreSpec.from_lines(good)


_REMOVED = "removed a temp file an interrupted autofix run left"


def _walk_dir(root: Path, config_of: Callable[[Path, Sequence[str]], Config], clean: bool = False) -> Iterator[Candidate]:
    """The files under root, in a stable order (sorted names, folder by folder).

    Runs once per file of a tree, so it works on strings: a folder's
    configuration is looked up once, and patterns are matched only when there are some.
    """
    ignores: list[tuple[str, object]] = []
    real_root = os.path.realpath(root)
    unreadable: list[tuple[str, OSError]] = []
    for dirpath, dirnames, filenames in _os_walk(os.fspath(root), unreadable):
        while unreadable:
            folder, exc = unreadable.pop()
            yield Candidate(Path(folder), None, note=f"cannot read folder: {exc.strerror or exc}", error=True)
        gitignore = os.path.join(dirpath, ".gitignore")
        if os.path.isfile(gitignore):
            try:
                lines = Path(gitignore).read_text(encoding="utf-8", errors="replace").splitlines()
                ignores.append((dirpath, _gitignore_spec(lines)))
            except OSError:
                pass
        config = config_of(Path(os.path.abspath(dirpath)), filenames)
        patterns = config.exclude is not None or bool(config.extend_exclude)
        defaults = DEFAULT_EXCLUDE if config.exclude is None else ()
        specs = [(base, spec) for base, spec in ignores if dirpath == base or dirpath.startswith(base + os.sep)]

        def ignored(name: str, is_dir: bool) -> bool:
            if is_dir and name in defaults:
                return True
            full = os.path.join(dirpath, name)
            if patterns and config.excludes(Path(full), is_dir):
                return True
            for base, spec in specs:
                rel = os.path.relpath(full, base) + ("/" if is_dir else "")
                if spec.match_file(rel):  # type: ignore[attr-defined]
                    return True
            return False

        dirnames[:] = sorted(
            d
            for d in dirnames
            if not ignored(d, True)
            and not os.path.islink(os.path.join(dirpath, d))
            and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg"))
        )
        temps = [n for n in filenames if n.endswith(".autofix") and n.startswith(".")] if clean else ()
        for full in stale_temps(dirpath, temps) if temps else ():
            yield Candidate(Path(full), None, note=_REMOVED)
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            spec = detect(name)
            if spec is None and "." not in name:
                spec = detect(name, _head(Path(full)))
            if spec is not None and not ignored(name, False):
                if os.path.islink(full) and _outside(os.path.realpath(full), real_root):
                    # As symlinked folders are not walked: a fix would write outside the tree.
                    yield Candidate(Path(full), spec, "symlink to a file outside the checked folder")
                    continue
                yield Candidate(Path(full), spec)
    for folder, exc in unreadable:
        yield Candidate(Path(folder), None, note=f"cannot read folder: {exc.strerror or exc}", error=True)


def _os_walk(top: str, unreadable: list[tuple[str, OSError]]) -> Iterator[tuple[str, list[str], list[str]]]:
    """os.walk (top down, the caller prunes dirnames) without recursion, so a tree 10,000 folders deep is
    walked; a folder that cannot be listed is put in unreadable (os.walk says nothing of it)."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            unreadable.append((folder, exc))
            continue
        dirs, names = [], []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else names).append(entry.name)
        yield folder, dirs, names
        stack.extend(os.path.join(folder, d) for d in reversed(dirs))


class NotRegularFile(OSError):
    """A FIFO, socket or device where a file was expected: autofix does not read it (a FIFO would block)."""


def read_regular(path: Path, limit: int | None = None) -> bytes:
    """A regular file's bytes (at most limit); a FIFO or device raises NotRegularFile without blocking.

    The file is opened non-blocking and checked through its open descriptor, so
    what is read is what was checked.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(0, "not a regular file", str(path))
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read() if limit is None else handle.read(limit)
    finally:
        os.close(fd)


def _outside(path: str, root: str) -> bool:
    return os.path.commonpath([path, root]) != root


def _spec_of(path: Path) -> FormatSpec | None:
    return detect(path.name) or detect(path.name, _head(path))


def _head(path: Path) -> bytes:
    try:
        return read_regular(path, HEAD_BYTES)
    except OSError:
        return b""


class NotWritten(OSError):
    """A fix autofix refuses to write: the file is read-only, or is not the file it read."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(0, reason, str(path))
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Identity:
    """The file a check read, as write_atomic compares it just before replacing it."""

    link: bool  # the name was a symlink
    real: str  # the name with every symlink resolved (a folder swapped for a link changes it)
    dev: int
    ino: int
    size: int
    mtime_ns: int


# The identity of each file read for a check, by absolute name (only files worth parsing: those a fix may write).
_READ: dict[str, Identity] = {}


def read_identified(path: Path) -> tuple[bytes, Identity]:
    """read_regular(path), and which file was read (see remember)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(0, "not a regular file", str(path))
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read()
    finally:
        os.close(fd)
    try:
        link = os.path.islink(path)
    except OSError:
        link = False
    return data, Identity(link, os.path.realpath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def remember(path: Path | str, identity: Identity) -> None:
    """A file read for a check: a fix is written only over that same file, unchanged (write_atomic)."""
    _READ[os.path.abspath(path)] = identity


def write_atomic(path: Path, data: bytes, expected: bytes | None = None) -> None:
    """Replace path's bytes with data, if path is still the file autofix read and holds expected.

    Just before writing, the file is checked against what was read (read_checked: device, inode,
    size, mtime_ns, and the bytes when expected is given), opened without following a symlink
    swapped in since, and refused when its permission bits forbid its owner to write (even for
    root: a read-only file says "do not edit me"). A file changed since that now holds data
    (another run of autofix fixed it) is left as it is. A symlink named as such is written through.

    How: a file with one link is replaced by a temp file beside it, renamed over it (a crash
    leaves the old or the new file, never half of one), carrying its mode, owner, group and
    extended attributes (ACLs among them). When the new file could not carry all of these (not
    root, another owner; an attribute that cannot be set) or the file has several hard links, it
    is written in place instead, after the same checks: the inode and everything on it are kept,
    and the space is allocated first so that a full disk leaves the old bytes.
    """
    name = os.fspath(path)
    seen = _READ.get(os.path.abspath(name))
    try:
        lst = os.lstat(name)
    except FileNotFoundError:
        raise NotWritten(path, "the file was removed since autofix read it") from None
    link = stat.S_ISLNK(lst.st_mode)
    if seen is not None and (link != seen.link or os.path.realpath(name) != seen.real):
        raise NotWritten(path, "the file was replaced (by a symlink?) since autofix read it")
    target = os.path.realpath(name) if link else name
    try:
        fd = os.open(target, os.O_RDONLY | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _O_CLOEXEC | _O_BINARY)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotWritten(path, "the file was replaced by a symlink since autofix read it") from None
        raise
    try:
        old = os.fstat(fd)
        if not stat.S_ISREG(old.st_mode):
            raise NotWritten(path, "not a regular file")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        changed = seen is not None and _id(old) != (seen.dev, seen.ino, seen.size, seen.mtime_ns)
        if not changed and expected is not None:
            changed = old.st_size != len(expected) or _read_all(fd) != expected
        if changed:
            if old.st_size == len(data) and _read_all(fd) == data:
                return  # it already holds the fix (another run wrote it): nothing is lost, nothing to do
            raise NotWritten(path, "the file changed since autofix read it")
        if not old.st_mode & stat.S_IWUSR:
            raise NotWritten(path, "the file is read-only")
        if old.st_nlink > 1 or not _replace(target, data, fd, old):
            _write_in_place(target, data, old)
    finally:
        os.close(fd)


def _id(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def _read_all(fd: int) -> bytes:
    chunks, at = [], 0
    while True:
        chunk = os.pread(fd, 1 << 20, at)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        at += len(chunk)


_TEMP = re.compile(r"^\..+\.(?:(\d+)\.[0-9a-f]{12}|[0-9a-f]{16})\.autofix$")
STALE_TEMP_SECONDS = 3600


def _temp_name(folder: str, name: str) -> str:
    """A hidden name beside name, of autofix's own pattern (_TEMP), that fits the folder's name length."""
    suffix = f".{os.getpid()}.{os.urandom(6).hex()}.autofix"
    try:
        limit = os.pathconf(folder or ".", "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    raw = os.fsencode(name)
    room = max(1, limit - len(suffix) - 1)
    if len(raw) > room:  # cut on a character boundary (a cut name stays a name)
        raw = raw[:room]
        while raw and os.fsdecode(raw).encode("utf-8", "surrogateescape") != raw:
            raw = raw[:-1]
        raw = raw or b"x"
    return os.path.join(folder, "." + os.fsdecode(raw) + suffix)


def stale_temps(folder: str, names: Sequence[str]) -> list[str]:
    """Remove the temp files of autofix's own naming among names in folder that no live run can be
    writing (their process is gone, or they are over an hour old); the paths removed."""
    import time

    removed = []
    for name in names:
        match = _TEMP.match(name)
        if match is None:
            continue
        full = os.path.join(folder, name)
        try:
            st = os.lstat(full)
            if not stat.S_ISREG(st.st_mode):
                continue
            pid = int(match[1]) if match[1] else None
            alive = pid is not None and _alive(pid)
            if alive and time.time() - st.st_mtime < STALE_TEMP_SECONDS:
                continue
            if pid is None and time.time() - st.st_mtime < 60:  # the naming before the pid was in it
                continue
            os.unlink(full)
            removed.append(full)
        except OSError:
            continue
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True  # another user's process: it may be a run
    return True


def _replace(target: str, data: bytes, fd: int, old: os.stat_result) -> bool:
    """Write data to a temp file beside target and rename it over target; False (nothing done) when
    the new file cannot carry target's owner, group or extended attributes."""
    folder = os.path.dirname(target)
    tmp = None
    try:
        while True:
            # Named before it is created: a signal at any point after leaves nothing behind
            # (mkstemp names its file only once it exists).
            tmp = _temp_name(folder, os.path.basename(target))
            try:
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_BINARY | _O_NOFOLLOW, 0o600)
                break
            except FileExistsError:  # another file's name: not ours to remove
                tmp = None
        with os.fdopen(out, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            new = os.fstat(handle.fileno())
            if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid) and hasattr(os, "fchown"):
                try:  # keep the owner (a fix run by root, or in a setgid folder); only root may give a file away
                    os.fchown(handle.fileno(), old.st_uid, old.st_gid)
                except OSError:
                    pass
            if not _copy_xattrs(fd, handle.fileno()):
                os.unlink(tmp)
                tmp = None
                return False
            os.chmod(handle.fileno(), stat.S_IMODE(old.st_mode))
            new = os.fstat(handle.fileno())
        if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid) or stat.S_IMODE(new.st_mode) != stat.S_IMODE(old.st_mode):
            # Another group would hold the old group's rights: written in place instead.
            os.unlink(tmp)
            tmp = None
            return False
        try:  # the last look before the rename: nothing saved over the file since the checks
            now = os.lstat(target)
        except FileNotFoundError:
            raise NotWritten(target, "the file was removed since autofix read it") from None
        if stat.S_ISLNK(now.st_mode) or _id(now) != _id(old):
            if not stat.S_ISLNK(now.st_mode) and _holds(target, data):
                os.unlink(tmp)  # another run wrote the same fix meanwhile
                tmp = None
                return True
            raise NotWritten(target, "the file changed since autofix read it")
        os.replace(tmp, target)
        return True
    except BaseException:
        try:
            if tmp is not None:
                os.unlink(tmp)
        except OSError:
            pass
        raise


def _holds(target: str, data: bytes) -> bool:
    """Whether the regular file at target holds exactly data."""
    try:
        fd = os.open(target, os.O_RDONLY | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _O_CLOEXEC | _O_BINARY)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        return stat.S_ISREG(st.st_mode) and st.st_size == len(data) and _read_all(fd) == data
    finally:
        os.close(fd)


def _copy_xattrs(src: int, dst: int) -> bool:
    """Copy every extended attribute (Linux ACLs are some) of src onto dst; False when one cannot be."""
    if not hasattr(os, "listxattr"):
        return True
    try:
        names = os.listxattr(src)
    except OSError:
        return True  # no extended attributes here (the file system has none)
    for attr in names:
        try:
            os.setxattr(dst, attr, os.getxattr(src, attr))
        except OSError:
            return False
    try:
        return all(os.getxattr(dst, attr) == os.getxattr(src, attr) for attr in names)
    except OSError:
        return False


def _write_in_place(target: str, data: bytes, old: os.stat_result) -> None:
    """Overwrite target's bytes in its own inode (its links, owner and attributes stay), after checking it
    is still the file checked; the space is allocated first, and on a failed write the old bytes go back."""
    import signal

    fd = os.open(target, os.O_RDWR | _O_NOFOLLOW | _O_CLOEXEC | _O_BINARY)
    try:
        if _id(os.fstat(fd)) != _id(old):
            if _read_all(fd) == data:
                return  # another run wrote the same fix meanwhile
            raise NotWritten(target, "the file changed since autofix read it")
        before = _read_all(fd)
        if len(data) > len(before) and hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, len(data))  # a full disk fails here, before a byte is changed
            except OSError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, getattr(errno, "ENOTSUP", -1)):
                    raise
        blocked = {signal.SIGINT, signal.SIGTERM} if hasattr(signal, "pthread_sigmask") else set()
        masked = signal.pthread_sigmask(signal.SIG_BLOCK, blocked) if blocked else None
        try:
            try:
                _pwrite_all(fd, data)
                os.ftruncate(fd, len(data))
                os.fsync(fd)
            except OSError:
                try:
                    _pwrite_all(fd, before)
                    os.ftruncate(fd, len(before))
                except OSError:
                    pass
                raise
        finally:
            if masked is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, masked)
    finally:
        os.close(fd)


def _pwrite_all(fd: int, data: bytes) -> None:
    view, at = memoryview(data), 0
    while at < len(data):
        at += os.pwrite(fd, view[at:], at)


_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# -- what the files beside a launch say ---------------------------------------------

_VERSION = r"v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)"  # 0.5.18, 0.5.18.post1, 0.5.19rc1
_PIN = re.compile(rf"^\s*sglang(?:\[[^\]]*\])?\s*==\s*{_VERSION}", re.M)
_PYPROJECT_PIN = re.compile(rf"""["']sglang(?:\[[^\]]*\])?\s*==\s*{_VERSION}""")


@functools.lru_cache(maxsize=1024)  # the folders of one tree share their parents
def _requirements_named(directory: Path, mtime_ns: int) -> tuple[str, ...]:
    """The requirements*.txt names in directory, as listed at mtime_ns (a new listing when it changes)."""
    try:
        with os.scandir(directory) as entries:
            return tuple(sorted(e.name for e in entries if e.name.startswith("requirements") and e.name.endswith(".txt")))
    except OSError:  # unreadable: nothing pinned there, as a glob would find nothing
        return ()


def _pins_in(directory: Path) -> frozenset[str] | None:
    """The SGLang pins of directory's requirements files and pyproject.toml; None when it has neither."""
    try:
        mtime = directory.stat().st_mtime_ns
    except OSError:
        return None
    pins, seen = set(), False
    for name in _requirements_named(directory, mtime):
        seen = True
        pins.update(map(release_of, _PIN.findall(_read_small(directory / name))))
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        seen = True
        pins.update(map(release_of, _PYPROJECT_PIN.findall(_read_small(pyproject))))
    return frozenset(pins) if seen else None


_OWN_NAME = re.compile(r"""^name\s*=\s*["']sglang["']\s*$""", re.M)
_OWN_VERSION = re.compile(rf"""^(?:version|__version__)\s*=\s*["']v?{_VERSION}["']""", re.M)


@functools.lru_cache(maxsize=256)
def _checkout_release(directory: Path) -> str | None:
    """The release of a checkout of SGLang itself (or a fork) that directory is the root of: the version
    its `python/pyproject.toml` (name "sglang") or `python/sglang/version.py` writes; None where it
    writes none (a version from git tags) or directory is no such checkout."""
    pyproject = _read_small(directory / "python" / "pyproject.toml")
    if not _OWN_NAME.search(pyproject):
        return None
    for text in (pyproject, _read_small(directory / "python" / "sglang" / "version.py")):
        found = _OWN_VERSION.search(text)
        if found is not None:
            return release_of(found.group(1))
    return None


def _own_checkout_release(folder: Path) -> str | None:
    """The release of the SGLang checkout a file is in: its files launch the SGLang they sit in."""
    for directory in (folder, *folder.parents):
        found = _checkout_release(directory)
        if found is not None or (directory / ".git").exists():
            return found
    return None


def neighbour_release(folder: Path) -> str | None:
    """The SGLang release pinned beside a launch file.

    Requirements files and pyproject.toml in the folder, else in the nearest
    parent that has one; else the version of the SGLang checkout (a fork's) the
    file is in; else an image tag in a Dockerfile in the folder.
    """
    for directory in (folder, *folder.parents):
        found = _pins_in(directory)
        if found is not None:
            if len(found) == 1:
                return next(iter(found))
            break
    own = _own_checkout_release(folder)
    if own is not None:
        return own
    for name in ("Dockerfile", "Containerfile"):
        dockerfile = folder / name
        if dockerfile.is_file():
            return release_in_text(_read_small(dockerfile))
    return None


def _read_small(path: Path, limit: int = 1 << 20) -> str:
    try:
        return read_regular(path, limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


@functools.lru_cache(maxsize=16)
def resolved_roots(cwd: str, roots: tuple[Path, ...]) -> tuple[Path, ...]:  # noqa: ARG001 - cwd: part of the key
    """The folders, resolved (relative ones from cwd), each once: every launch file of a run asks
    for the same ones, and a run naming a thousand files has a thousand."""
    return tuple(dict.fromkeys(r.resolve() for r in roots))


# -- launches split across files: `--config FILE` ----------------------------------------


def real_path(path: Path) -> Path:
    """path with its symlinks resolved; a symlink loop or a dangling link is resolved as far as it goes.

    (Path.resolve raises RuntimeError on a loop before Python 3.13; os.path.realpath does not.)
    """
    return Path(os.path.realpath(path))


def display(path: Path) -> str:
    """How autofix names a file it was not given: relative to the working directory when inside it."""
    resolved = real_path(path)
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(resolved)


class ConfigReader:
    """The YAML file a launch's `--config FILE` names, as `Settings.read_config` wants it.

    FILE is looked up relative to the launch file's folder, then the working
    directory, and read only when it is inside the scanned tree or the working
    directory, and small.
    """

    def __init__(self, launch_dir: Path, roots: Sequence[Path]):
        self.launch_dir = launch_dir
        self.roots = resolved_roots(os.getcwd(), (*roots, Path.cwd()))

    def resolve(self, value: str) -> Path | None:
        if not value or "\x00" in value:
            return None
        for base in (self.launch_dir, Path.cwd()):
            try:
                candidate = (base / value).resolve()
            except (OSError, RuntimeError):
                continue
            if any(candidate.is_relative_to(root) for root in self.roots) and candidate.is_file():
                return candidate
        return None

    def __call__(self, value: str) -> Linked | None:
        path = self.resolve(value)
        if path is None:
            return None
        try:
            if path.stat().st_size > CONFIG_YAML_LIMIT:
                return None
            data, identity = read_identified(path)
            if len(data) > CONFIG_YAML_LIMIT:
                return None
            source = Source.decode(data)
        except (OSError, DecodeError):
            return None
        remember(display(path), identity)
        return Linked(display(path), source)


_TOP_KEY = re.compile(rb"""^["']?([A-Za-z][A-Za-z0-9_-]*)["']?[ \t]*:""", re.M)


def may_be_config(data: bytes) -> bool:
    """Whether a YAML text has a top-level key that is an SGLang option (dashes or underscores,
    any release): only such a file is worth looking for the scripts that read it by `--config`."""
    names = _option_names()
    return any(match[1] in names for match in _TOP_KEY.finditer(data))


@functools.cache
def _option_names() -> frozenset[bytes]:
    from autofix.knowledge.options import all_tables

    long = {flag[2:] for t in all_tables() for option in t.options for flag in option.flags if flag.startswith("--")}
    return frozenset(name.encode() for spelling in long for name in (spelling, spelling.replace("-", "_")))


class ConfigIndex:
    """Which launch files read a config file through `--config FILE`.

    The files searched are those the run hands over (`add`, as it screens them)
    and, on first use, those of one walk of the search folders (a folder inside
    another is walked as part of it); only files that say `--config` are kept.
    roots: where a config file may be read from (see ConfigReader).
    """

    def __init__(self, roots: Sequence[Path], search: Sequence[Path] | None = None):
        self.roots = [r for r in dict.fromkeys(r.resolve() for r in roots) if r.is_dir()]
        folders = [r for r in dict.fromkeys(r.resolve() for r in (roots if search is None else search)) if r.is_dir()]
        self.search = [r for r in folders if not any(r != o and r.is_relative_to(o) for o in folders)]
        self._added: dict[Path, tuple[Path, FormatSpec, bytes]] = {}
        self._walked: dict[Path, tuple[Path, FormatSpec, bytes]] | None = None
        self._reads: dict[Path, set[Path]] = {}

    def add(self, path: Path, spec: FormatSpec, data: bytes) -> None:
        """A file the run read: searched without being read again, if it says `--config`."""
        if b"--config" in data:
            real = real_path(path)
            self._added[real] = (real, spec, data)

    def referrers(self, config: Path) -> list[Path]:
        """The launch files whose launches read config."""
        target = real_path(config)
        name = target.name.encode("utf-8", "surrogateescape")
        return [
            path for path, spec, data in self._files()
            if name in data and path != target and target in self.reads(path, spec, data)
        ]

    def reads(self, path: Path, spec: FormatSpec, data: bytes) -> set[Path]:
        """The config files a launch file's launches read."""
        if path not in self._reads:
            found: set[Path] = set()
            try:
                values = config_references(Source.decode(data), spec)
            except Exception:  # noqa: BLE001 - a file autofix cannot read names no config
                values = []
            reader = ConfigReader(path.parent, self.roots)
            for value in values:
                resolved = reader.resolve(value)
                if resolved is not None:
                    found.add(resolved)
            self._reads[path] = found
        return self._reads[path]

    def _files(self) -> list[tuple[Path, FormatSpec, bytes]]:
        if self._walked is None:
            self._walked = {}
            # Default excludes only: a configuration elsewhere under the folders (even a
            # broken one) is no concern of the search for the scripts that read a file.
            for count, candidate in enumerate(walk(self.search)):
                if count >= INDEX_LIMIT:
                    break
                path = real_path(candidate.path)
                if candidate.spec is None or path in self._added or path in self._walked:
                    continue
                data = _read_bytes(path)
                if data is not None and b"--config" in data:
                    self._walked[path] = (path, candidate.spec, data)
        return [*self._added.values(), *(v for k, v in self._walked.items() if k not in self._added)]


def _read_bytes(path: Path, limit: int = 1 << 22) -> bytes | None:
    try:
        if path.stat().st_size > limit:
            return None
        return read_regular(path, limit + 1)
    except OSError:
        return None

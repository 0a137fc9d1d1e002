"""`--enable-hierarchical-cache` together with `--disable-radix-cache`.

## What it does
Finds launches that pass both `--enable-hierarchical-cache` and
`--disable-radix-cache`.

## Why is this bad?
SGLang refuses to start. Its cache compatibility check raises
`ValueError: The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive and cannot be used at the same time. Please use only one of them.`
The hierarchical cache (HiCache) extends the radix prefix cache into host
memory and storage; with the radix cache off there is nothing to extend.

## Example
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2 --enable-hierarchical-cache --disable-radix-cache
```

## Use instead
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 2 --disable-radix-cache
```

## Fix safety
Unsafe: the launch cannot start as written, and the two flags ask for
opposite things. The fix removes `--enable-hierarchical-cache`: the server
runs without prefix caching, as `--disable-radix-cache` asks, and allocates no
host memory for a cache tier. If you meant to use HiCache, remove
`--disable-radix-cache` instead.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.edits import Fix
from autofix.fixer import Finding, fixer
from autofix.model import Launch


@fixer(
    code="SGL016",
    name="hierarchical-cache-with-radix-cache-disabled",
    record="9b177de7f3bee551",
    errors=("ff9429d44e1a",),
)
def check(launch: Launch) -> Iterator[Finding]:
    hicache = launch.flag("enable_hierarchical_cache")
    if hicache is None or launch.value("disable_radix_cache") is not True:
        return
    yield Finding(
        at=hicache.span,
        message="`--enable-hierarchical-cache` needs the radix cache, and `--disable-radix-cache` turns it off",
        fix=Fix.unsafe("Remove `--enable-hierarchical-cache`", launch.remove_all("enable_hierarchical_cache")),
    )

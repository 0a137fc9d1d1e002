"""`--ssl-keyfile` without `--ssl-certfile`, or the reverse.

## What it does
Finds launches that give SGLang's HTTPS server a private key
(`--ssl-keyfile`) but no certificate (`--ssl-certfile`), or a certificate but
no key.

## Why is this bad?
SGLang refuses to start. Its SSL validation raises
`ValueError: --ssl-keyfile requires --ssl-certfile to be specified as well.`
or, for a certificate alone,
`ValueError: --ssl-certfile requires --ssl-keyfile to be specified as well.`
TLS needs both halves of the key pair.

## Example
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 0.0.0.0 --ssl-keyfile /etc/sglang/tls/server.key
```

## Use instead
```sh
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --host 0.0.0.0 --ssl-keyfile /etc/sglang/tls/server.key --ssl-certfile /etc/sglang/tls/server.crt
```

## Fix safety
No fix: only you know where the other file is, and dropping the one that is
written would serve plain HTTP. The finding names the missing flag.
"""

from __future__ import annotations

from collections.abc import Iterator

from autofix.fixer import Finding, fixer
from autofix.model import Launch



@fixer(
    code="SGL018",
    name="ssl-keyfile-and-certfile-unpaired",
    record="d36b75c95b60c86d",
    errors=("2628e81d42b1", "eabb1aba4756"),
)
def check(launch: Launch) -> Iterator[Finding]:
    key, cert = launch.flag("ssl_keyfile"), launch.flag("ssl_certfile")
    # SGLang tests both for truth: an empty path is no file.
    has_key, has_cert = bool(key and key.value), bool(cert and cert.value)
    if has_key and not has_cert:
        yield Finding.on(key, "`--ssl-keyfile` needs `--ssl-certfile` as well")  # type: ignore[arg-type]
    elif has_cert and not has_key:
        yield Finding.on(cert, "`--ssl-certfile` needs `--ssl-keyfile` as well")  # type: ignore[arg-type]

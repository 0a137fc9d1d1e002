"""What SGLang makes of the attention backend and page size flags a launch writes.

Shared by the fixers of SGLang's attention-backend rules. SGLang resolves these
in `_attention_backend_default` and `_mla_backend_page_constraints`
(`arg_groups/overrides.py`); a value that depends on the GPU or on the model is
None here, and the fixers asking for it stay quiet.
"""

from __future__ import annotations

from autofix.knowledge.releases import parse_release
from autofix.model import Launch, Unresolvable

PHASES = ("attention_backend", "prefill_attention_backend", "decode_attention_backend")

# Architectures whose own passes (DSA, DeepSeek-V4) rewrite the KV cache dtype,
# the backends or the page size before the generic checks read them.
OWN_ATTENTION_RULES = frozenset(
    {"DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "DeepseekV4ForCausalLM"}
)

# Backends SGLang's attention registry refuses for a model that is not MLA.
MLA_ONLY = frozenset({"flashmla", "cutlass_mla", "trtllm_mla", "tokenspeed_mla", "cutedsl_mla"})

# Backends whose page size SGLang sets from the GPU, the platform or the model.
_PAGE_FROM_HARDWARE = frozenset(
    {"fa4", "intel_xpu", "intel_amx", "aiter", "ascend", "wave", "dsa", "nsa", "dsv4", "compressed"}
)
# Backend -> the page sizes it keeps; any other becomes 64.
_PAGE_KEPT = {
    "trtllm_mla": (32, 64),
    "tokenspeed_mla": (32, 64),
    "cutedsl_mla": (32, 64),
    "trtllm_mha": (16, 32, 64, 128),
    "hpc_ops": (64,),
}


def written(launch: Launch, dest: str) -> str | None:
    """The value of a backend flag as written, None when absent."""
    flag = launch.flag(dest)
    if flag is None:
        return None
    value = flag.value
    if not isinstance(value, str):
        raise Unresolvable(dest)
    return value


def attention_backend(launch: Launch) -> str | None:
    """SGLang's resolved `attention_backend`, or None when SGLang picks it from the GPU.

    `_attention_backend_default`: equal prefill and decode backends replace it;
    otherwise the written `--attention-backend` stays.
    """
    prefill = written(launch, "prefill_attention_backend")
    if prefill is not None and prefill == written(launch, "decode_attention_backend"):
        return prefill
    return written(launch, "attention_backend")


def phase_backends(launch: Launch) -> tuple[str | None, str | None]:
    """SGLang's `attention_backends_of`: (prefill, decode), None where the GPU decides."""
    attention = attention_backend(launch)
    prefill = written(launch, "prefill_attention_backend") or attention
    decode = written(launch, "decode_attention_backend") or attention
    return prefill, decode


def owns_attention_rules(launch: Launch) -> bool:
    return launch.model.architecture in OWN_ATTENTION_RULES


def page_size(launch: Launch) -> int | None:
    """The page size SGLang resolves on CUDA, or None when the GPU or the model decides it.

    The written `--page-size` (else unset), snapped the way
    `_mla_backend_page_constraints` snaps it for the backends written, then
    `_page_size_default` (unset means 1).
    """
    attention = attention_backend(launch)
    if attention is None:
        return None  # SGLang's default backend may snap the page size
    prefill = written(launch, "prefill_attention_backend")
    decode = written(launch, "decode_attention_backend")
    draft = written(launch, "speculative_draft_attention_backend")
    if {attention, prefill, decode} & _PAGE_FROM_HARDWARE or owns_attention_rules(launch):
        return None
    if launch.flag("dllm_algorithm") is not None:
        return None
    # A backend the model cannot use is refused (and removed by its fixer) before the page matters.
    mla = launch.model.mla
    if mla is False and {attention, prefill, decode} & MLA_ONLY or mla is True and "trtllm_mha" in {attention, prefill, decode}:
        return None
    page: int | None = launch.int_value("page_size") if launch.flag("page_size") is not None else None
    decoding = {attention, decode}
    everywhere = {attention, decode, prefill}
    if "flashmla" in decoding:
        page = 64
    if "cutlass_mla" in decoding and parse_release(launch.release or "0.5.22") <= (0, 5, 19):  # type: ignore[operator]
        page = 128
    for backend, kept in _PAGE_KEPT.items():
        phases = decoding if backend in ("trtllm_mla", "tokenspeed_mla") else everywhere
        if backend == "trtllm_mha":
            phases = everywhere | {draft}
        if backend in phases and page not in kept:
            page = 64
    return 1 if page is None else page

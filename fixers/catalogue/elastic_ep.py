"""Catalogue rules: elastic expert parallelism and its neighbours in SGLang's resolution.

Mirrors SGLang's `handle_elastic_ep` (`ServerArgs._handle_elastic_ep` up to 0.5.18),
`handle_dwdp`, `handle_data_parallelism` and `context_parallel_attn_dp_size`
(`parallel_hook.py`, `model_override_base.py`) and `handle_expert_pack`
(`expert_pack_hook.py`).

`handle_elastic_ep` is one long run of asserts, each reached only when the ones
before it pass; `_elastic_refusal` walks it as the launch's release writes it and
names the first one that fails, so each rule below reports its error only where
SGLang raises that one. Where SGLang reads a value the launch does not fix (the
CUDA graph backends left to their defaults, a layout prefill CP or DWDP rewrites,
the machine's InfiniBand devices), the walk stops there and the later rules stay
quiet.
"""

from __future__ import annotations

from autofix.knowledge.releases import parse_release
from autofix.model import Unresolvable
from autofix.rules import remove, rule, set_

from ._common import served
from ._elastic_graphs import graph_refusal, older_graph_refusal

_ELASTIC_EPLB = ("auto", "elasticity_aware", "elasticity_aware_hierarchical")


def _release(cfg) -> tuple[int, ...]:  # noqa: ANN001
    return parse_release(cfg._launch.table.release) or (0, 0, 0)


def _join_mode(cfg) -> str | None:  # noqa: ANN001
    """ep_join_mode, with the deprecated `--elastic-ep-rejoin` (to 0.5.20) read as `recover`."""
    mode = cfg.ep_join_mode
    if mode is None and cfg.get("elastic_ep_rejoin", False):
        return "recover"
    return mode


def _prefill_cp(cfg) -> bool:  # noqa: ANN001
    """Prefill CP is on (`--enable-prefill-cp`, or a legacy CP switch of 0.5.17-0.5.19)."""
    return bool(cfg.enable_prefill_cp or cfg.get("enable_prefill_context_parallel", False)
                or cfg.get("enable_dsa_prefill_context_parallel", False))


def _layout_as_written(cfg) -> None:  # noqa: ANN001
    """DWDP and prefill CP (the DeepSeek model overrides) rewrite the DP/CP/EP layout
    and the dense-MoE TP size before handle_elastic_ep reads them."""
    if cfg.dwdp_size > 1 or _prefill_cp(cfg):
        raise Unresolvable("DWDP or prefill CP resizes the parallel layout")


def _model_is_not(cfg, *prefixes: str) -> None:  # noqa: ANN001
    """Unknown unless the served model's architecture is known and is none of these
    (a family autofix knows only by name, such as `Qwen/...`, may be any of them)."""
    architecture = cfg._launch.model.architecture
    if architecture is None or architecture.startswith(prefixes):
        raise Unresolvable("the model may override the value")


def _attn_dp_dp(cfg) -> tuple[int, int]:  # noqa: ANN001
    """(attn_dp_size, dp_size) from 0.5.22 on, after `handle_deprecated_dp_attention`
    turns `--dp-size N --enable-dp-attention` into `--attn-dp-size N`."""
    if cfg.enable_dp_attention and cfg.attn_dp_size == 1:
        return cfg.dp_size, 1
    return cfg.attn_dp_size, cfg.dp_size


def _moe_dense_tp_size(cfg) -> object:  # noqa: ANN001
    """moe_dense_tp_size when handle_elastic_ep reads it: Qwen4-Exp's override turns 1 into None."""
    _layout_as_written(cfg)
    size = cfg.moe_dense_tp_size
    if size == 1 and _release(cfg) >= (0, 5, 21):
        _model_is_not(cfg, "Qwen4Exp")
    return size


def _load_balance_method(cfg) -> str:  # noqa: ANN001
    """`handle_load_balance_method` resolves `auto`: follow_bootstrap_room on a PD prefill server."""
    method = cfg.load_balance_method
    if method == "auto":
        return "follow_bootstrap_room" if cfg.disaggregation_mode == "prefill" else "round_robin"
    return method


# What _elastic_refusal(cfg, upto_graphs=True) says of a scale-up launch that passes every
# assert before the CUDA graph ones.
BEFORE_GRAPHS_PASS = "graphs"


def _elastic_refusal(cfg, upto_graphs: bool = False) -> str | None:  # noqa: ANN001, C901, PLR0911, PLR0912
    """The catalogue id of the first assert of handle_elastic_ep the launch fails
    (`other` for one no rule here reports), or None when it passes them all; with upto_graphs,
    BEFORE_GRAPHS_PASS for a scale-up launch that reaches the CUDA graph asserts."""
    release = _release(cfg)
    backend = cfg.elastic_ep_backend  # `none` is a string here, not None
    mode = cfg.ep_join_mode
    if cfg.get("elastic_ep_rejoin", False):
        if mode is None:
            mode = "recover"
        elif mode != "recover":
            return "4f5de845e623"  # --elastic-ep-rejoin conflicts with --elastic-ep-join-mode
    if backend is not None:
        if cfg.enable_eplb and cfg.eplb_algorithm not in _ELASTIC_EPLB:
            return "607a15bc4c10"
        if cfg.pp_size != 1:
            return "9c345cb1e8f2"
        if backend == "mooncake" and cfg.mooncake_ib_device is not None:
            raise Unresolvable("the InfiniBand devices are checked against the machine's")
    offset = cfg.ep_join_rank_offset
    if mode is not None:
        if backend is None:
            return "314958539b1f"
        if mode == "scale":
            if cfg.node_rank != 1:
                return "3443ddaee2e6"
            if not offset > 0:
                return "5d976fe8ec35"
    if offset != 0:
        if mode != "scale":
            return "15f4272ea8cd"
        if not offset >= 0:
            return "c1534fa55a0d"
    max_ep_size = cfg.max_ep_size
    if max_ep_size is not None:
        if backend is None:
            return "4733eac35b39"
        if not max_ep_size > 0:
            return "43f47a8a1a57"
    tp = cfg.tp_size
    scaling = backend is not None and max_ep_size is not None and max_ep_size > tp
    initial = cfg.elastic_ep_initial_size
    if initial is not None and not scaling:
        return "3017e200acc5"
    if not scaling:
        return None
    return _scale_up_refusal(cfg, release, mode, tp, max_ep_size, initial, offset, upto_graphs)


def _scale_up_refusal(cfg, release, mode, tp, max_ep_size, initial, offset, upto_graphs=False) -> str | None:  # noqa: ANN001, C901, PLR0911, PLR0912, PLR0913
    """The scale-up block of handle_elastic_ep (`--max-ep-size` above `--tp-size`)."""
    attn_tp = None
    if release >= (0, 5, 23):
        _layout_as_written(cfg)
        attn_dp, _ = _attn_dp_dp(cfg)
        attn_cp = cfg.attn_cp_size
        if tp <= 0 or attn_dp <= 0 or attn_cp <= 0 or tp % (attn_dp * attn_cp):
            return "51ad39ce5705"
        attn_tp = tp // attn_dp // attn_cp
        replica = attn_tp * attn_cp
        joined = [max_ep_size, initial or tp] + ([offset] if mode == "scale" else [])
        if any(size <= 0 or size % replica for size in joined):
            return "other"  # physical_ep_size_to_dp_size: EP size not a multiple of the replica
        if attn_tp > 1 and _moe_dense_tp_size(cfg) != 1:
            return "042d90bda9d4"
    if not cfg.elastic_ep_scale_timeout > 0:
        return "16827543fd9d"
    if cfg.tokenizer_worker_num != 1:
        return "b50ca619ca89"
    if cfg.use_ray:
        return "686a981201df"
    if cfg.enable_elastic_expert_backup:
        return "7fcd9d82aa8d"
    if mode == "scale":
        if initial is None:
            return "5fd23c9d6524"
        if initial > offset:
            return "06a9b306b33e"
        if offset + tp > max_ep_size:
            return "52b845158e87"
        if tp == 1 and _moe_dense_tp_size(cfg) != 1:
            return "7bfa9eadba8c"
    else:
        initial = tp if initial is None else initial
        if initial != tp:
            return "6233e56ee995"
    if not initial > 0:
        return "c2594300e9c0"
    if _load_balance_method(cfg) != "round_robin":
        return "9196ce59a70a"
    if cfg.elastic_ep_backend != "mooncake":
        return "c89f5f10f938"
    if cfg.pp_size != 1:
        return "b57ecae48fda"
    if attn_tp is not None and attn_tp % cfg.dcp_size:
        return "24fde7be79cf"
    if upto_graphs:
        return BEFORE_GRAPHS_PASS
    # Both CUDA graph phases off (0.5.17-0.5.20 need that; later ones the prefill graph off and
    # the decode one off or full), and past the checks of a full decode graph's recapture.
    if release >= (0, 5, 21):
        graphs = graph_refusal(cfg)
        if graphs is not None:
            return graphs
    else:
        graphs = older_graph_refusal(cfg)
        if graphs is not None:
            return graphs
    return _scale_up_topology_refusal(cfg, release, mode, tp)


def _a2a_backend(cfg) -> str:  # noqa: ANN001
    """moe_a2a_backend when handle_elastic_ep reads it (the layout is as written)."""
    if cfg.enable_waterfill or cfg.get("moe_runner_backend", "auto") == "megamoe":
        raise Unresolvable("Waterfill and the megamoe runner pick the a2a backend")
    backend = cfg.moe_a2a_backend
    if backend == "ascend_tp":
        raise Unresolvable("ascend_tp is resolved to none on the machine")
    if backend == "none":
        model = cfg._launch.model
        if model.architecture is None and not model.known:
            raise Unresolvable("model not known")
        if (model.architecture or "").startswith("MiniMaxM3"):
            raise Unresolvable("MiniMax-M3 NVFP4 picks megamoe")
    return backend


def _scale_up_topology_refusal(cfg, release, mode, tp) -> str | None:  # noqa: ANN001, C901, PLR0911
    """The last asserts of the scale-up block: attention DP, the DP LM head, CP, MoE DP, EP and a2a."""
    _layout_as_written(cfg)
    if release >= (0, 5, 22):
        attn_dp, dp = _attn_dp_dp(cfg)
        if not (attn_dp > 1 or mode == "scale"):
            return "dec87a2a677a"
        # _data_parallelism_defaults turns the DP LM head off with one DP rank (not for a scale joiner).
        lm_head = cfg.enable_dp_lm_head and not (dp * attn_dp == 1 and mode != "scale")
    else:
        # _data_parallelism_defaults turns both off with --dp-size 1 (not for a scale joiner).
        single = cfg.dp_size == 1 and mode != "scale"
        if not (cfg.enable_dp_attention and not single):
            return "32f34ff833bd"  # Elastic EP scale-up requires --enable-dp-attention
        lm_head = cfg.enable_dp_lm_head and not single
    if not lm_head:
        return "acf046d83d17"
    if cfg.attn_cp_size != 1:
        return "4df7a0c5303b"
    if cfg.moe_dp_size != 1:
        return "9f5784e8709a"
    a2a = _a2a_backend(cfg)
    if a2a == "nixl":
        return None if release >= (0, 5, 23) or _older_widths_pass(cfg, release, tp) else _older_width_error(release)
    if a2a != "none":
        raise Unresolvable("whether this a2a backend spans EP over the TP group differs by release")
    if cfg.ep_size != tp:
        return "72130126aea5" if release >= (0, 5, 23) else "973b58d4964b"
    if not _older_widths_pass(cfg, release, tp):
        return _older_width_error(release)
    return "0ec629973d70"


def _older_width_error(release: tuple[int, ...]) -> str:
    """The error of that width check: dp_size == tp_size to 0.5.21, attn_dp_size == tp_size in 0.5.22."""
    return "ffac8fbb5404" if release >= (0, 5, 22) else "da3110115312"


def _older_widths_pass(cfg, release, tp) -> bool:  # noqa: ANN001
    """Before 0.5.23 scale-up also needs dp_size (to 0.5.21) or attn_dp_size (0.5.22) equal to tp_size."""
    if release >= (0, 5, 23):
        return True
    if release >= (0, 5, 22):
        return _attn_dp_dp(cfg)[0] == tp
    return cfg.dp_size == tp


def _refuses(cfg, error: str) -> bool:  # noqa: ANN001
    """Whether handle_elastic_ep refuses the launch first with `error` (SGLang runs it after the dummy-model return)."""
    return served(cfg.model_path) and _elastic_refusal(cfg) == error


# -- handle_elastic_ep: switches before the scale-up block -------------------------

rule(
    code="SGL420",
    name="elastic-ep-eplb-algorithm-not-elasticity-aware",
    errors="607a15bc4c10",
    when=lambda cfg: cfg.elastic_ep_backend is not None and cfg.enable_eplb
    and cfg.eplb_algorithm not in _ELASTIC_EPLB and _refuses(cfg, "607a15bc4c10"),
    at=("eplb_algorithm", "elastic_ep_backend"),
    message="`--elastic-ep-backend {elastic_ep_backend}` with `--enable-eplb` needs `--eplb-algorithm` "
    "`auto`, `elasticity_aware` or `elasticity_aware_hierarchical`, got `{eplb_algorithm}`",
    fix=set_("eplb_algorithm", "elasticity_aware"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --ep-size 2 --elastic-ep-backend nixl "
    "--enable-eplb --eplb-algorithm deepseek",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --ep-size 2 --elastic-ep-backend nixl "
    "--enable-eplb --eplb-algorithm elasticity_aware",
)

rule(
    code="SGL421",
    name="elastic-ep-with-pipeline-parallelism",
    errors="9c345cb1e8f2",
    when=lambda cfg: cfg.elastic_ep_backend is not None and cfg.pp_size != 1 and _refuses(cfg, "9c345cb1e8f2"),
    at=("pp_size", "elastic_ep_backend"),
    message="`--elastic-ep-backend {elastic_ep_backend}` needs `--pp-size 1`, got `--pp-size {pp_size}`",
    fix=remove("pp_size"),
    example="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --pp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl",
)

rule(
    code="SGL422",
    name="elastic-ep-join-mode-without-backend",
    errors="314958539b1f",
    when=lambda cfg: cfg.elastic_ep_backend is None and (cfg.ep_join_mode is not None or cfg.get("elastic_ep_rejoin", False))
    and _refuses(cfg, "314958539b1f"),
    at=("ep_join_mode",),
    message="`--elastic-ep-join-mode` needs `--elastic-ep-backend` (`mooncake` or `nixl`)",
    example="--model-path Qwen/Qwen3-8B --elastic-ep-join-mode recover",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-join-mode recover --elastic-ep-backend nixl",
)

rule(
    code="SGL423",
    name="elastic-ep-scale-join-not-node-rank-1",
    errors="3443ddaee2e6",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.node_rank != 1 and _refuses(cfg, "3443ddaee2e6"),
    at=("node_rank", "ep_join_mode"),
    message="`--elastic-ep-join-mode scale` joins as one TP group at `--node-rank 1`, got `--node-rank {node_rank}`",
    example="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --elastic-ep-join-mode scale "
    "--elastic-ep-join-rank-offset 2",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --elastic-ep-join-mode scale "
    "--elastic-ep-join-rank-offset 2 --nnodes 2 --node-rank 1",
)

rule(
    code="SGL424",
    name="elastic-ep-scale-join-without-rank-offset",
    errors="5d976fe8ec35",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.ep_join_rank_offset <= 0 and _refuses(cfg, "5d976fe8ec35"),
    at=("ep_join_mode", "ep_join_rank_offset"),
    message="`--elastic-ep-join-mode scale` needs `--elastic-ep-join-rank-offset` set to the current EP size "
    "(above 0), got {ep_join_rank_offset}",
    example="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --elastic-ep-join-mode scale "
    "--nnodes 2 --node-rank 1",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --elastic-ep-join-mode scale "
    "--nnodes 2 --node-rank 1 --elastic-ep-join-rank-offset 2",
)

rule(
    code="SGL425",
    name="elastic-ep-rank-offset-without-scale-join",
    errors="15f4272ea8cd",
    when=lambda cfg: cfg.ep_join_rank_offset != 0 and cfg.ep_join_mode != "scale" and _refuses(cfg, "15f4272ea8cd"),
    at=("ep_join_rank_offset", "ep_join_mode"),
    message="`--elastic-ep-join-rank-offset {ep_join_rank_offset}` is only valid with `--elastic-ep-join-mode scale`",
    fix=remove("ep_join_rank_offset"),
    example="--model-path Qwen/Qwen3-8B --elastic-ep-join-rank-offset 2",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-join-rank-offset 0",
)

rule(
    code="SGL426",
    name="max-ep-size-without-elastic-ep-backend",
    errors="4733eac35b39",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.elastic_ep_backend is None and _refuses(cfg, "4733eac35b39"),
    at="max_ep_size",
    message="`--max-ep-size {max_ep_size}` needs `--elastic-ep-backend` (`mooncake` or `nixl`)",
    fix=remove("max_ep_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --max-ep-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --max-ep-size 2 --elastic-ep-backend nixl",
)

rule(
    code="SGL427",
    name="max-ep-size-not-positive",
    errors="43f47a8a1a57",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.max_ep_size <= 0 and cfg.elastic_ep_backend is not None
    and _refuses(cfg, "43f47a8a1a57"),
    at="max_ep_size",
    message="`--max-ep-size` must be a positive integer, got {max_ep_size}",
    fix=remove("max_ep_size"),
    example="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --max-ep-size 0",
    near_miss="--model-path Qwen/Qwen3-8B --elastic-ep-backend nixl --max-ep-size 1",
)

rule(
    code="SGL428",
    name="elastic-ep-initial-size-without-scale-up",
    errors="3017e200acc5",
    when=lambda cfg: cfg.elastic_ep_initial_size is not None
    and not (cfg.elastic_ep_backend is not None and cfg.max_ep_size is not None and cfg.max_ep_size > cfg.tp_size)
    and _refuses(cfg, "3017e200acc5"),
    at=("elastic_ep_initial_size", "max_ep_size"),
    message="`--elastic-ep-initial-size` needs an elastic EP deployment (`--elastic-ep-backend`) "
    "with `--max-ep-size` above `--tp-size {tp_size}`",
    fix=remove("elastic_ep_initial_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --elastic-ep-backend nixl --max-ep-size 2 "
    "--elastic-ep-initial-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --elastic-ep-backend nixl --max-ep-size 2",
)


# -- handle_elastic_ep: the scale-up block (--max-ep-size above --tp-size) ----------

# A primary scale-up deployment SGLang accepts in every release: attention DP over the
# whole TP group, EP over it through nixl, round-robin balancing, no CUDA graphs.
_SCALE_UP = ("--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
             "--ep-size 2 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 4 "
             "--load-balance-method round_robin --disable-cuda-graph")
# The same deployment's joining group.
_SCALE_JOIN = _SCALE_UP + " --elastic-ep-join-mode scale --nnodes 2 --node-rank 1 --elastic-ep-join-rank-offset 2"

rule(
    code="SGL430",
    name="elastic-ep-scale-up-attention-tp-without-moe-dense-tp-size-1",
    errors="042d90bda9d4",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.moe_dense_tp_size != 1 and _refuses(cfg, "042d90bda9d4"),
    at=("max_ep_size", "moe_dense_tp_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) with attention TP above 1 needs "
    "`--moe-dense-tp-size 1`, got {moe_dense_tp_size}",
    fix=set_("moe_dense_tp_size", "1"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
    "--ep-size 4 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 8 "
    "--load-balance-method round_robin --disable-cuda-graph",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --enable-dp-lm-head "
    "--ep-size 4 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 8 "
    "--load-balance-method round_robin --disable-cuda-graph",
)

rule(
    code="SGL431",
    name="elastic-ep-scale-timeout-not-positive",
    errors="16827543fd9d",
    when=lambda cfg: cfg.elastic_ep_scale_timeout <= 0 and _refuses(cfg, "16827543fd9d"),
    at="elastic_ep_scale_timeout",
    message="`--elastic-ep-scale-timeout` must be greater than zero, got {elastic_ep_scale_timeout}",
    fix=remove("elastic_ep_scale_timeout"),
    example=_SCALE_UP + " --elastic-ep-scale-timeout 0",
    near_miss=_SCALE_UP + " --elastic-ep-scale-timeout 60",
)

rule(
    code="SGL432",
    name="elastic-ep-scale-up-with-tokenizer-workers",
    errors="b50ca619ca89",
    when=lambda cfg: cfg.tokenizer_worker_num != 1 and _refuses(cfg, "b50ca619ca89"),
    at=("tokenizer_worker_num", "max_ep_size"),
    message="elastic EP runtime scale-up (`--max-ep-size {max_ep_size}`) needs `--tokenizer-worker-num 1`, "
    "got {tokenizer_worker_num}",
    fix=set_("tokenizer_worker_num", "1"),
    safe=True,
    example=_SCALE_UP + " --tokenizer-worker-num 2",
    near_miss=_SCALE_UP + " --tokenizer-worker-num 1",
)

rule(
    code="SGL433",
    name="elastic-ep-scale-up-with-ray",
    errors="686a981201df",
    when=lambda cfg: cfg.use_ray and _refuses(cfg, "686a981201df"),
    at=("use_ray", "max_ep_size"),
    message="elastic EP runtime scale-up (`--max-ep-size {max_ep_size}`) does not support `--use-ray`",
    fix=remove("use_ray"),
    example=_SCALE_UP + " --use-ray",
    near_miss=_SCALE_UP,
)

rule(
    code="SGL434",
    name="elastic-ep-scale-up-with-expert-backup",
    errors="7fcd9d82aa8d",
    when=lambda cfg: cfg.enable_elastic_expert_backup and _refuses(cfg, "7fcd9d82aa8d"),
    at=("enable_elastic_expert_backup", "max_ep_size"),
    message="elastic EP runtime scale-up (`--max-ep-size {max_ep_size}`) does not support "
    "`--enable-elastic-expert-backup`",
    fix=remove("enable_elastic_expert_backup"),
    example=_SCALE_UP + " --enable-elastic-expert-backup",
    near_miss=_SCALE_UP,
)

rule(
    code="SGL435",
    name="elastic-ep-scale-join-without-initial-size",
    errors="5fd23c9d6524",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.elastic_ep_initial_size is None
    and _refuses(cfg, "5fd23c9d6524"),
    at=("ep_join_mode", "max_ep_size"),
    message="an elastic EP scale joiner (`--elastic-ep-join-mode scale`) needs `--elastic-ep-initial-size` "
    "set to the primary deployment's launch-time EP size",
    example=_SCALE_JOIN,
    near_miss=_SCALE_JOIN + " --elastic-ep-initial-size 2",
)

rule(
    code="SGL436",
    name="elastic-ep-initial-size-above-join-rank-offset",
    errors="06a9b306b33e",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.elastic_ep_initial_size is not None
    and cfg.elastic_ep_initial_size > cfg.ep_join_rank_offset and _refuses(cfg, "06a9b306b33e"),
    at=("elastic_ep_initial_size", "ep_join_rank_offset"),
    message="`--elastic-ep-initial-size {elastic_ep_initial_size}` cannot exceed the current EP size "
    "`--elastic-ep-join-rank-offset {ep_join_rank_offset}`",
    example=_SCALE_JOIN + " --elastic-ep-initial-size 4",
    near_miss=_SCALE_JOIN + " --elastic-ep-initial-size 2",
)

rule(
    code="SGL437",
    name="elastic-ep-joining-group-exceeds-max-ep-size",
    errors="52b845158e87",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.max_ep_size is not None
    and cfg.ep_join_rank_offset + cfg.tp_size > cfg.max_ep_size and _refuses(cfg, "52b845158e87"),
    at=("ep_join_rank_offset", "max_ep_size"),
    message="the joining group ends past `--max-ep-size {max_ep_size}`: `--elastic-ep-join-rank-offset "
    "{ep_join_rank_offset}` plus `--tp-size {tp_size}` is larger",
    example=_SCALE_UP.replace("--max-ep-size 4", "--max-ep-size 6") + " --elastic-ep-join-mode scale --nnodes 2 "
    "--node-rank 1 --elastic-ep-join-rank-offset 6 --elastic-ep-initial-size 2",
    near_miss=_SCALE_UP.replace("--max-ep-size 4", "--max-ep-size 6") + " --elastic-ep-join-mode scale --nnodes 2 "
    "--node-rank 1 --elastic-ep-join-rank-offset 4 --elastic-ep-initial-size 2",
)

rule(
    code="SGL438",
    name="single-rank-elastic-ep-join-without-moe-dense-tp-size-1",
    errors="7bfa9eadba8c",
    when=lambda cfg: cfg.ep_join_mode == "scale" and cfg.tp_size == 1 and cfg.moe_dense_tp_size != 1
    and _refuses(cfg, "7bfa9eadba8c"),
    at=("ep_join_mode", "moe_dense_tp_size"),
    message="a single-rank elastic EP joining group (`--tp-size 1`) needs `--moe-dense-tp-size 1`",
    fix=set_("moe_dense_tp_size", "1"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp-size 1 --enable-dp-attention --enable-dp-lm-head "
    "--moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 4 --load-balance-method round_robin "
    "--disable-cuda-graph --elastic-ep-join-mode scale --nnodes 2 --node-rank 1 --elastic-ep-join-rank-offset 2 "
    "--elastic-ep-initial-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
    "--ep-size 2 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 4 "
    "--load-balance-method round_robin --disable-cuda-graph --elastic-ep-join-mode scale --nnodes 2 "
    "--node-rank 1 --elastic-ep-join-rank-offset 2 --elastic-ep-initial-size 2",
)

rule(
    code="SGL439",
    name="elastic-ep-primary-initial-size-not-tp-size",
    errors="6233e56ee995",
    when=lambda cfg: cfg.ep_join_mode != "scale" and cfg.elastic_ep_initial_size is not None
    and cfg.elastic_ep_initial_size != cfg.tp_size and _refuses(cfg, "6233e56ee995"),
    at="elastic_ep_initial_size",
    message="the primary deployment's `--elastic-ep-initial-size {elastic_ep_initial_size}` must equal its "
    "launch-time `--tp-size {tp_size}`",
    fix=set_("elastic_ep_initial_size", lambda cfg: str(cfg.tp_size)),
    safe=True,
    example=_SCALE_UP + " --elastic-ep-initial-size 4",
    near_miss=_SCALE_UP + " --elastic-ep-initial-size 2",
)

rule(
    code="SGL440",
    name="elastic-ep-initial-size-not-positive",
    errors="c2594300e9c0",
    when=lambda cfg: cfg.elastic_ep_initial_size is not None and cfg.elastic_ep_initial_size <= 0
    and _refuses(cfg, "c2594300e9c0"),
    at="elastic_ep_initial_size",
    message="`--elastic-ep-initial-size` must be above 0, got {elastic_ep_initial_size}",
    example=_SCALE_JOIN + " --elastic-ep-initial-size 0",
    near_miss=_SCALE_JOIN + " --elastic-ep-initial-size 2",
)

rule(
    code="SGL441",
    name="elastic-ep-scale-up-load-balance-not-round-robin",
    errors="9196ce59a70a",
    # handle_load_balance_method turns `auto` into follow_bootstrap_room on a PD prefill server.
    when=lambda cfg: cfg.load_balance_method != "round_robin" and _refuses(cfg, "9196ce59a70a"),
    at=("load_balance_method", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--load-balance-method round_robin`: "
    "load-aware methods need global-rank load snapshots after scale",
    fix=set_("load_balance_method", "round_robin"),
    safe=True,
    example=_SCALE_UP.replace("round_robin", "total_requests"),
    near_miss=_SCALE_UP,
)

rule(
    code="SGL442",
    name="elastic-ep-scale-up-backend-not-mooncake",
    errors="c89f5f10f938",
    when=lambda cfg: cfg.elastic_ep_backend != "mooncake" and _refuses(cfg, "c89f5f10f938"),
    at=("elastic_ep_backend", "max_ep_size"),
    message="elastic EP runtime scale-up (`--max-ep-size {max_ep_size}`) needs `--elastic-ep-backend mooncake`, "
    "got `{elastic_ep_backend}`",
    fix=set_("elastic_ep_backend", "mooncake"),
    safe=True,
    example=_SCALE_UP.replace("mooncake", "nixl"),
    near_miss=_SCALE_UP,
)

rule(
    code="SGL443",
    name="elastic-ep-scale-up-dcp-size-not-dividing-attention-tp",
    errors="24fde7be79cf",
    when=lambda cfg: cfg.dcp_size > 1 and _refuses(cfg, "24fde7be79cf"),
    at=("dcp_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--dcp-size {dcp_size}` to divide the "
    "attention TP width (`--tp-size` over attention DP and CP)",
    fix=remove("dcp_size"),
    example=_SCALE_UP + " --dcp-size 2",
    near_miss=_SCALE_UP + " --dcp-size 1",
)

rule(
    code="SGL444",
    name="elastic-ep-scale-up-without-attention-dp",
    errors="dec87a2a677a",
    when=lambda cfg: cfg.max_ep_size is not None and cfg.ep_join_mode != "scale"
    and _refuses(cfg, "dec87a2a677a"),
    at="max_ep_size",
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs attention DP (`--attn-dp-size`): without it "
    "the TP group is not WORLD and the collectives after a scale are invalid",
    example="--model-path Qwen/Qwen3-8B --tp-size 1 --moe-a2a-backend nixl --elastic-ep-backend mooncake "
    "--max-ep-size 4 --load-balance-method round_robin --disable-cuda-graph",
    near_miss=_SCALE_UP,
)

rule(
    code="SGL445",
    name="elastic-ep-scale-up-without-dp-lm-head",
    errors="acf046d83d17",
    when=lambda cfg: cfg.max_ep_size is not None and not cfg.enable_dp_lm_head and _refuses(cfg, "acf046d83d17"),
    at="max_ep_size",
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--enable-dp-lm-head`, so that the output "
    "projection does not depend on the joining group's TP size",
    fix=set_("enable_dp_lm_head"),
    safe=True,
    example=_SCALE_UP.replace(" --enable-dp-lm-head", ""),
    near_miss=_SCALE_UP,
)

rule(
    code="SGL446",
    name="elastic-ep-scale-up-with-attention-cp",
    errors="4df7a0c5303b",
    when=lambda cfg: cfg.attn_cp_size != 1 and _refuses(cfg, "4df7a0c5303b"),
    at=("attn_cp_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--attn-cp-size 1`, got {attn_cp_size}",
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 2 --enable-dp-attention --enable-dp-lm-head "
    "--attn-cp-size 2 --ep-size 4 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 8 "
    "--load-balance-method round_robin --disable-cuda-graph",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dp-size 4 --enable-dp-attention --enable-dp-lm-head "
    "--attn-cp-size 1 --ep-size 4 --moe-a2a-backend nixl --elastic-ep-backend mooncake --max-ep-size 8 "
    "--load-balance-method round_robin --disable-cuda-graph",
)

rule(
    code="SGL447",
    name="elastic-ep-scale-up-ep-size-not-tp-size",
    errors="72130126aea5",
    when=lambda cfg: cfg.ep_size != cfg.tp_size and _refuses(cfg, "72130126aea5"),
    at=("ep_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs the EP size to equal `--tp-size {tp_size}`, "
    "got `--ep-size {ep_size}`",
    example=_SCALE_UP.replace(" --moe-a2a-backend nixl", "").replace("--ep-size 2", "--ep-size 1"),
    near_miss=_SCALE_UP.replace("--ep-size 2", "--ep-size 1"),
)

rule(
    code="SGL448",
    name="elastic-ep-scale-up-a2a-backend-not-nixl",
    errors="0ec629973d70",
    when=lambda cfg: cfg.moe_a2a_backend != "nixl" and _refuses(cfg, "0ec629973d70"),
    at=("moe_a2a_backend", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs `--moe-a2a-backend nixl`, "
    "got `{moe_a2a_backend}`",
    fix=set_("moe_a2a_backend", "nixl"),
    safe=True,
    example=_SCALE_UP.replace(" --moe-a2a-backend nixl", ""),
    near_miss=_SCALE_UP,
)


# -- handle_dwdp (after --dwdp-size equals --tp-size and before the layout it forces) -

rule(
    code="SGL450",
    name="dwdp-on-pd-decode-server",
    errors="2d7d1a9ba80b",
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.dwdp_size == cfg.tp_size
    and cfg.disaggregation_mode not in ("null", "prefill") and served(cfg.model_path),
    at=("dwdp_size", "disaggregation_mode"),
    message="DWDP (`--dwdp-size {dwdp_size}`) needs `--disaggregation-mode null` or `prefill`, "
    "got `{disaggregation_mode}`",
    fix=remove("dwdp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --disaggregation-mode decode",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --disaggregation-mode prefill",
)

rule(
    code="SGL451",
    name="dwdp-with-speculative-decoding",
    errors="4b006e75b917",
    # --enable-return-aux-hidden-states (0.5.23) only names a capture convention and resets it to None first.
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.dwdp_size == cfg.tp_size
    and cfg.disaggregation_mode in ("null", "prefill") and not cfg.enable_eplb
    and cfg.speculative_algorithm is not None and not cfg.get("enable_return_aux_hidden_states", False)
    and served(cfg.model_path),
    at=("speculative_algorithm", "dwdp_size"),
    message="DWDP (`--dwdp-size {dwdp_size}`) does not support speculative decoding "
    "(`--speculative-algorithm {speculative_algorithm}`)",
    fix=remove("dwdp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --speculative-algorithm NGRAM",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4",
)

rule(
    code="SGL452",
    name="dwdp-with-two-batch-overlap",
    errors="eaa65c53d18e",
    when=lambda cfg: cfg.dwdp_size > 1 and cfg.dwdp_size == cfg.tp_size
    and cfg.disaggregation_mode in ("null", "prefill") and not cfg.enable_eplb
    and (cfg.speculative_algorithm is None or cfg.get("enable_return_aux_hidden_states", False))
    and cfg.pp_size == 1 and cfg.enable_two_batch_overlap and served(cfg.model_path),
    at=("enable_two_batch_overlap", "dwdp_size"),
    message="DWDP's prefetch event protocol (`--dwdp-size {dwdp_size}`) does not support "
    "`--enable-two-batch-overlap`",
    fix=remove("enable_two_batch_overlap"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4 --enable-two-batch-overlap",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --dwdp-size 4",
)

# -- handle_data_parallelism / context_parallel_attn_dp_size ----------------------

rule(
    code="SGL453",
    name="dp-size-with-attn-dp-size",
    errors=("3e678a779b57", "69d2f1805d0f"),
    # handle_dwdp resets dp_size to 1 first; the DeepSeek CP overrides (context_parallel_attn_dp_size)
    # refuse the same layout earlier with the same words. `--dp N --enable-dp-attention` beside
    # `--attn-dp-size` above 1 stays as written (handle_deprecated_dp_attention).
    when=lambda cfg: cfg.attn_dp_size > 1 and cfg.dp_size > 1 and cfg.dwdp_size <= 1 and served(cfg.model_path),
    at=("dp_size", "attn_dp_size"),
    message="`--dp-size {dp_size}` (data-parallel replicas) cannot be combined with attention data "
    "parallelism `--attn-dp-size {attn_dp_size}`",
    fix=remove("dp_size"),
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --attn-dp-size 2 --dp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --attn-dp-size 2",
)

# -- handle_expert_pack -------------------------------------------------------------


def _expert_pack_problems(cfg) -> list[str]:  # noqa: ANN001
    """What handle_expert_pack reports from the flags alone (files it checks are not read here);
    any one of them makes it raise, after it has looked at the rest."""
    sizes = [("--tp-size", cfg.tp_size), ("--dp-size", cfg.dp_size), ("--ep-size", cfg.ep_size)]
    if cfg.has("attn_dp_size"):  # 0.5.22 on
        sizes.append(("--attn-dp-size", cfg.attn_dp_size))
    problems = [f"`{option} {size}` (must be 1)" for option, size in sizes if size != 1]
    problems += [f"`{flag}`" for flag, on in (("--enforce-shared-experts-fusion", cfg.enforce_shared_experts_fusion),
                                             ("--enable-waterfill", cfg.enable_waterfill)) if on]
    for phase in ("decode", "prefill"):
        backend = cfg.get(f"cuda_graph_backend_{phase}", None)
        if backend not in (None, "disabled") and cfg.cuda_graph_config is None:
            problems.append(f"`--cuda-graph-backend-{phase} {backend}` (must be disabled)")
    return problems


rule(
    code="SGL454",
    name="expert-pack-load-format-with-unsupported-flags",
    errors="cdb1b44789c3",
    when=lambda cfg: cfg.load_format == "expert_pack" and bool(_expert_pack_problems(cfg)) and served(cfg.model_path),
    at=("load_format",),
    message=lambda cfg: "`--load-format expert_pack` does not support " + ", ".join(_expert_pack_problems(cfg)),
    example="--model-path Qwen/Qwen3-8B --load-format expert_pack --tp-size 2",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2",
)


# -- handle_eplb_and_dispatch ---------------------------------------------------------

rule(
    code="SGL455",
    name="rank-dependent-ep-dispatch-without-a2a-backend",
    errors="a95f0e2caa32",
    # Without an a2a backend every EP rank must pick the same replica; an unset algorithm becomes `dynamic`.
    when=lambda cfg: cfg.ep_dispatch_algorithm in ("static", "lp") and cfg.moe_a2a_backend == "none"
    and _a2a_stays_none(cfg) and served(cfg.model_path),
    at=("ep_dispatch_algorithm", "moe_a2a_backend"),
    message="`--ep-dispatch-algorithm {ep_dispatch_algorithm}` picks a different physical replica per rank, which "
    "needs an a2a backend routing each token to one rank; without one (`--moe-a2a-backend none`) use `dynamic`",
    fix=set_("ep_dispatch_algorithm", "dynamic"),
    safe=True,
    example="--model-path Qwen/Qwen3-8B --tp-size 4 --ep-size 2 --ep-dispatch-algorithm static",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 4 --ep-size 2 --ep-dispatch-algorithm dynamic",
)


def _a2a_stays_none(cfg) -> bool:  # noqa: ANN001
    """moe_a2a_backend `none` is still none when SGLang reads it after handle_a2a_moe."""
    _layout_as_written(cfg)
    return _a2a_backend(cfg) == "none"


# -- handle_shared_experts_tp (0.5.21 on) ----------------------------------------------


def _attn_tp_size(cfg) -> int:  # noqa: ANN001
    """The attention-TP width: tp_size over attention DP and attention CP, as resolved."""
    _layout_as_written(cfg)
    if _release(cfg) >= (0, 5, 22):
        attn_dp, _ = _attn_dp_dp(cfg)
    else:
        attn_dp = cfg.dp_size if cfg.enable_dp_attention else 1
    return cfg.tp_size // attn_dp // cfg.attn_cp_size


def _shared_experts_tp_fits(cfg) -> bool:  # noqa: ANN001
    size = cfg.shared_experts_tp_size
    return size >= 1 and _attn_tp_size(cfg) % size == 0


def _instance_connector(model_path: object) -> bool:
    """parse_connector_type(model_path) == 'instance': `instance://...` (the scheme read greedily)."""
    if not isinstance(model_path, str):
        raise Unresolvable("model path not known")
    scheme, sep, _ = model_path.rpartition("://")
    return bool(sep) and scheme == "instance"


rule(
    code="SGL456",
    name="shared-experts-tp-size-not-dividing-attention-tp",
    errors="d88591c5e050",
    when=lambda cfg: cfg.shared_experts_tp_size is not None and not _shared_experts_tp_fits(cfg)
    and served(cfg.model_path),
    at=("shared_experts_tp_size", "tp_size"),
    message="`--shared-experts-tp-size {shared_experts_tp_size}` must be a positive divisor of the attention TP "
    "size (`--tp-size {tp_size}` over attention DP and CP)",
    fix=remove("shared_experts_tp_size"),
    example="--model-path moonshotai/Kimi-K3 --tp-size 4 --moe-a2a-backend deepep --shared-experts-tp-size 3",
    near_miss="--model-path moonshotai/Kimi-K3 --tp-size 4 --moe-a2a-backend deepep --shared-experts-tp-size 2",
)

rule(
    code="SGL457",
    name="shared-experts-tp-size-with-instance-model",
    errors="9e57502f57e1",
    when=lambda cfg: cfg.shared_experts_tp_size is not None and _shared_experts_tp_fits(cfg)
    and _instance_connector(cfg.model_path),
    at=("shared_experts_tp_size", "model_path"),
    message="`--shared-experts-tp-size` needs a Kimi-K3 model configuration, which an `instance://` "
    "`--model-path` does not give",
    fix=remove("shared_experts_tp_size"),
    example="--model-path instance://127.0.0.1:30000 --served-model-name kimi --tp-size 2 --shared-experts-tp-size 2",
    near_miss="--model-path instance://127.0.0.1:30000 --served-model-name kimi --tp-size 2",
)

rule(
    code="SGL458",
    name="shared-experts-tp-size-without-ep-a2a-backend",
    errors="615d88c82777",
    when=lambda cfg: cfg.shared_experts_tp_size is not None and _shared_experts_tp_fits(cfg)
    and cfg.model.architecture == "KimiK3ForConditionalGeneration"
    and cfg.moe_a2a_backend not in ("deepep", "megamoe", "mooncake", "ascend_fuseep", "mori")
    and _a2a_backend(cfg) not in ("deepep", "megamoe", "mooncake", "ascend_fuseep", "mori")
    and served(cfg.model_path),
    at=("shared_experts_tp_size", "moe_a2a_backend"),
    message="`--shared-experts-tp-size` needs an expert-parallel all-to-all backend (`--moe-a2a-backend` deepep, "
    "megamoe, mooncake, ascend_fuseep or mori), got `{moe_a2a_backend}`",
    example="--model-path moonshotai/Kimi-K3 --tp-size 4 --shared-experts-tp-size 2",
    near_miss="--model-path moonshotai/Kimi-K3 --tp-size 4 --shared-experts-tp-size 2 --moe-a2a-backend deepep",
)


# -- handle_context_parallelism ----------------------------------------------------------


def _attn_cp_as_written(cfg) -> int:  # noqa: ANN001
    """attn_cp_size when handle_context_parallelism reads it: as written unless DWDP runs, or
    prefill CP runs on a model whose overrides may resize it (MLA, DeepSeek V3.2/V4, GLM-5)."""
    if cfg.dwdp_size > 1 or cfg.get("enable_prefill_context_parallel", False) \
            or cfg.get("enable_dsa_prefill_context_parallel", False):
        raise Unresolvable("DWDP or a legacy CP switch resizes the layout")
    if cfg.enable_prefill_cp:
        if cfg.cp_strategy is None:
            return 0  # refused just before, for the missing --cp-strategy
        model = cfg._launch.model
        if model.mla is not False or (model.architecture or "").startswith(
                ("DeepseekV4", "DeepseekV32", "GlmMoeDsa")):
            raise Unresolvable("prefill CP on a model whose overrides resize CP")
    return cfg.attn_cp_size


def _aiter_fusion_on(cfg) -> bool:  # noqa: ANN001
    """--enable-aiter-allreduce-fusion still on: deterministic inference (or an RL on-policy
    target, which turns it on) turns it off, and so does MiniMax-M3 on ROCm."""
    if not cfg.enable_aiter_allreduce_fusion:
        return False
    if cfg.enable_deterministic_inference or cfg.rl_on_policy_target is not None:
        return False
    model = cfg._launch.model
    if (model.architecture is None and not model.known) or (model.architecture or "").startswith("MiniMaxM3"):
        raise Unresolvable("MiniMax-M3 turns the fusion off on ROCm")
    return True


def _cp_refuses_aiter(cfg) -> bool:  # noqa: ANN001
    """handle_context_parallelism reaches one of its two aiter-fusion asserts (attention CP above 1,
    or MoE DP above 1), past the divisibility asserts before each."""
    tp, cp = cfg.tp_size, _attn_cp_as_written(cfg)
    if cp > 1:
        width = _attn_dp_dp(cfg)[0] if _release(cfg) >= (0, 5, 22) else cfg.dp_size
        return tp % cp == 0 and tp % (width * cp) == 0
    if cp < 1 or cfg.moe_dp_size <= 1:
        return False
    if not _a2a_stays_none(cfg):
        raise Unresolvable("the EP size an a2a backend resolves")
    moe_dp, ep = cfg.moe_dp_size, cfg.ep_size
    return tp % moe_dp == 0 and ep * moe_dp <= tp and cfg.pp_size == 1 and (ep <= 1 or ep * moe_dp == tp)


rule(
    code="SGL459",
    name="aiter-allreduce-fusion-with-context-parallelism",
    errors="191a2274f7ba",
    when=lambda cfg: cfg.enable_aiter_allreduce_fusion and (cfg.attn_cp_size > 1 or cfg.moe_dp_size > 1)
    and _aiter_fusion_on(cfg) and _cp_refuses_aiter(cfg) and served(cfg.model_path),
    at=("enable_aiter_allreduce_fusion", "attn_cp_size", "moe_dp_size"),
    message="`--enable-aiter-allreduce-fusion` is not supported with context parallelism "
    "(`--attn-cp-size {attn_cp_size}`, `--moe-dp-size {moe_dp_size}`)",
    fix=remove("enable_aiter_allreduce_fusion"),
    example="--model-path Qwen/Qwen3-8B --tp-size 2 --attn-cp-size 2 --enable-aiter-allreduce-fusion",
    near_miss="--model-path Qwen/Qwen3-8B --tp-size 2 --attn-cp-size 2",
)


# -- handle_elastic_ep (0.5.23): the attention topology of a scale-up ----------------------

rule(
    code="SGL460",
    name="elastic-ep-scale-up-attn-cp-size-not-positive",
    errors="51ad39ce5705",
    # A width that does not divide --tp-size is refused earlier (handle_data_parallelism,
    # handle_context_parallelism); a CP width of 0 or less reaches this check.
    when=lambda cfg: cfg.attn_cp_size <= 0 and cfg.tp_size > 0 and _refuses(cfg, "51ad39ce5705"),
    at=("attn_cp_size", "max_ep_size"),
    message="elastic EP scale-up (`--max-ep-size {max_ep_size}`) needs a positive `--attn-cp-size`, "
    "got {attn_cp_size}",
    fix=remove("attn_cp_size"),
    example=_SCALE_UP + " --attn-cp-size 0",
    near_miss=_SCALE_UP + " --attn-cp-size 1",
)

"""inference_lab: the inference techniques measured side by side on one model, each in a fresh
copy: train mode as given, eval() + inference_mode(), half precision (autocast, cast weights),
torch.compile, CUDA graphs, dynamic int8; a batch-size sweep; accuracy against the eval fp32
reference; and the reading."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import html
import math
import random
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ._batch import batch_size_of, call_model, first_tensor, to_device
from ._latency import _one_request
from ._memory_plan import _cpu_tensor_bytes_above_start
from ._results import (
    Conditions,
    MeasurementWarning,
    ResultMixin,
    Stats,
    rows_to_pandas,
    timing_warnings,
    warning_lines,
)
from ._timing import resolve_device, synchronize

if TYPE_CHECKING:
    import pandas

Generate = Callable[[Any, Any], Iterator[Any]]

VARIANTS = (
    "train-mode",
    "eval",
    "autocast",
    "weights-cast",
    "compile",
    "compile-max-autotune",
    "cuda-graphs",
    "int8-dynamic",
)

# A variant whose outputs differ from the reference by more than this (largest absolute
# difference over the reference's largest magnitude), or whose top-1 class differs on more
# than TOP1_TOLERANCE of the rows, is not recommended however fast it is.
REL_TOLERANCE = 0.05
TOP1_TOLERANCE = 0.01
# A throughput within the throughput at the knee by this share counts as the plateau.
KNEE_SHARE = 0.90


@dataclass(frozen=True)
class InferenceVariant:
    """One variant of the inference lab."""

    name: str  # one of VARIANTS
    description: str
    available: bool
    reason: str | None  # why it did not run
    dtype: str | None  # of the computation: float32, bfloat16, float16, int8 (weights)
    latency: Stats | None  # per request, end to end, device synchronised
    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    throughput_per_s: float | None  # items (the example's batch size) per second
    speedup_vs_eval: float | None  # throughput over the eval variant's
    first_call_ms: float | None  # the first warm-up call (compilation shows here)
    peak_memory_bytes: int | None
    time_to_first_token_ms: float | None  # p50, generators only
    tokens_per_s: float | None  # generators only
    max_abs_error: float | None  # against the eval fp32 reference
    max_rel_error: float | None  # max abs error over the reference's largest magnitude
    top1_agreement: float | None  # share of rows whose argmax matches (outputs like logits)
    token_agreement: float | None  # share of generated tokens equal to the reference's
    accuracy_ok: bool | None  # within REL_TOLERANCE and TOP1_TOLERANCE
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BatchPoint:
    batch_size: int
    p50_ms: float
    p99_ms: float
    throughput_per_s: float  # batch / mean latency: sustained, every interruption counted
    p50_throughput_per_s: float  # batch / p50 latency: what the knee is read from
    peak_memory_bytes: int | None


@dataclass(frozen=True)
class BatchSweep:
    """Latency and throughput against the batch size (eval + inference_mode, fp32)."""

    points: tuple[BatchPoint, ...]
    knee: int | None  # the smallest batch reaching KNEE_SHARE of the best p50 throughput
    knee_note: str
    p99_target_ms: float | None
    largest_within_target: int | None  # the largest batch whose p99 meets the target
    stopped_because: str


@dataclass(frozen=True)
class InferenceLabResult(ResultMixin):
    """Every variant, the batch sweep and the reading."""

    variants: tuple[InferenceVariant, ...]
    sweep: BatchSweep | None
    recommended: str | None  # the variant the reading recommends
    reading: str
    peak_memory_kind: str
    batch_size: int | None
    warmup: int
    iters: int
    time_budget_s: float
    elapsed_s: float
    conditions: Conditions
    warnings: tuple[str, ...]
    warnings_issued: bool = False  # also issued as MeasurementWarning (warn=True)

    def variant(self, name: str) -> InferenceVariant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(name)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per variant."""
        return rows_to_pandas(self.variants)

    def __str__(self) -> str:
        head = (
            f"{'variant':<21} {'p50 ms':>9} {'p99 ms':>9} {'items/s':>11} {'vs eval':>8} "
            f"{'peak mem':>11} {'max abs err':>11} {'max rel err':>11} {'top-1':>7}"
        )
        lines = [head]
        generating = any(v.tokens_per_s is not None for v in self.variants)
        for v in self.variants:
            if not v.available:
                lines.append(f"{v.name:<21} not run: {v.reason}")
                continue
            line = (
                f"{v.name:<21} {_num(v.p50_ms, '.3f'):>9} {_num(v.p99_ms, '.3f'):>9} "
                f"{_num(v.throughput_per_s, ',.1f'):>11} "
                f"{_num(v.speedup_vs_eval, '.2f', 'x'):>8} {_mib(v.peak_memory_bytes):>11} "
                f"{_num(v.max_abs_error, '.2e'):>11} {_num(v.max_rel_error, '.2e'):>11} "
                f"{_percent(v.top1_agreement):>7}"
            )
            if generating:
                line += (
                    f"  first token {_num(v.time_to_first_token_ms, '.3f')} ms, "
                    f"{_num(v.tokens_per_s, ',.1f')} tokens/s"
                )
            lines.append(line)
        if self.sweep is not None and self.sweep.points:
            lines.append("batch sweep (eval + inference_mode, fp32):")
            lines.append(
                f"  {'batch':>6} {'p50 ms':>9} {'p99 ms':>9} {'items/s':>11} {'at p50':>11}"
            )
            for p in self.sweep.points:
                mark = "  <- knee" if p.batch_size == self.sweep.knee else ""
                lines.append(
                    f"  {p.batch_size:>6} {p.p50_ms:>9.3f} {p.p99_ms:>9.3f} "
                    f"{p.throughput_per_s:>11,.1f} {p.p50_throughput_per_s:>11,.1f}{mark}"
                )
            lines.append(f"  {self.sweep.knee_note}; stopped: {self.sweep.stopped_because}")
        lines.append(f"peak memory: {self.peak_memory_kind}")
        lines.append(f"lab took {self.elapsed_s:.1f} s (budget {self.time_budget_s:.0f} s)")
        lines += [line.strip() for line in warning_lines(self.warnings, self.warnings_issued)]
        lines.append(self.reading)
        return "\n".join(lines)

    def to_html(self) -> str:
        """A self-contained page: the reading, the variant table and the sweep; every string
        escaped."""
        e = html.escape
        rows = []
        for v in self.variants:
            if not v.available:
                rows.append(
                    f"<tr><td>{e(v.name)}</td><td colspan='8'>not run: {e(v.reason or '')}</td>"
                    "</tr>"
                )
                continue
            cells = [
                v.name,
                _num(v.p50_ms, ".3f"),
                _num(v.p99_ms, ".3f"),
                _num(v.throughput_per_s, ",.1f"),
                _num(v.speedup_vs_eval, ".2f", "x"),
                _mib(v.peak_memory_bytes),
                _num(v.max_abs_error, ".2e"),
                _num(v.max_rel_error, ".2e"),
                _percent(v.top1_agreement),
            ]
            rows.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
        sweep = ""
        if self.sweep is not None and self.sweep.points:
            body = "".join(
                f"<tr><td>{p.batch_size}</td><td>{p.p50_ms:.3f}</td><td>{p.p99_ms:.3f}</td>"
                f"<td>{p.throughput_per_s:,.1f}</td><td>{p.p50_throughput_per_s:,.1f}</td></tr>"
                for p in self.sweep.points
            )
            sweep = (
                "<h2>Batch sweep</h2><table><tr><th>batch</th><th>p50 ms</th><th>p99 ms</th>"
                f"<th>items/s</th><th>items/s at p50</th></tr>{body}</table>"
                f"<p>{e(self.sweep.knee_note)}; stopped: "
                f"{e(self.sweep.stopped_because)}</p>"
            )
        c = self.conditions
        return (
            "<!DOCTYPE html><html><head><meta charset='utf-8'>"
            "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\"><title>stepscope inference lab</title><style>"
            "body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}"
            "td:first-child{text-align:left}</style></head><body>"
            f"<h1>Inference lab</h1><p>{e(self.reading)}</p>"
            "<table><tr><th>variant</th><th>p50 ms</th><th>p99 ms</th><th>items/s</th>"
            "<th>vs eval</th><th>peak memory</th><th>max abs err</th><th>max rel err</th>"
            f"<th>top-1</th></tr>{''.join(rows)}</table>{sweep}"
            f"<p>peak memory: {e(self.peak_memory_kind)}. {e(c.device)} ({e(c.device_name)}), "
            f"torch {e(c.torch_version)}, {c.threads} threads; the lab took "
            f"{self.elapsed_s:.1f} s.</p></body></html>\n"
        )


def _num(value: float | None, spec: str, suffix: str = "") -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:{spec}}{suffix}"


def _percent(share: float | None) -> str:
    return _num(None if share is None else share * 100, ".1f", "%")


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.1f} MiB"


# ---------------------------------------------------------------------------------------------
# Building blocks


def _seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def _cast_floats(value: Any, dtype: torch.dtype) -> Any:
    """`value` with every floating tensor cast to `dtype` (integer tensors, token ids, kept)."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, tuple | list):
        return type(value)(_cast_floats(v, dtype) for v in value)
    if isinstance(value, Mapping):
        return {k: _cast_floats(v, dtype) for k, v in value.items()}
    return value


def _tensors(value: Any) -> list[torch.Tensor]:
    """Every tensor in `value` (nested tuples, lists, dicts, objects with ``to_tuple``), in
    order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, Mapping):
        value = list(value.values())
    elif hasattr(value, "to_tuple"):  # Hugging Face ModelOutput
        value = value.to_tuple()
    if isinstance(value, tuple | list):
        return [t for item in value for t in _tensors(item)]
    return []


def _repeat_to(value: Any, size: int, batch: int) -> Any:
    """`value` with every tensor whose leading dimension is `batch` repeated along it and cut
    to `size` rows."""
    if isinstance(value, torch.Tensor):
        if value.dim() == 0 or value.shape[0] != batch:
            return value
        copies = -(-size // batch)
        return torch.cat([value] * copies)[:size].contiguous()
    if isinstance(value, tuple | list):
        return type(value)(_repeat_to(v, size, batch) for v in value)
    if isinstance(value, Mapping):
        return {k: _repeat_to(v, size, batch) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class _Accuracy:
    max_abs: float | None
    max_rel: float | None
    top1: float | None


def _compare(output: Any, reference: Any) -> _Accuracy:
    """The largest difference of `output` from `reference`, tensor by tensor."""
    got, want = _tensors(output), _tensors(reference)
    if not want or len(got) != len(want):
        return _Accuracy(None, None, None)
    max_abs = 0.0
    scale = 0.0
    top1: float | None = None
    for a, b in zip(got, want, strict=True):
        if a.shape != b.shape:
            return _Accuracy(None, None, None)
        if a.is_quantized:
            a = a.dequantize()
        if not b.is_floating_point():
            max_abs = max(max_abs, float((a != b).float().max()) if a.numel() else 0.0)
            continue
        a32 = a.detach().float()
        b32 = b.detach().float()
        if a32.numel() == 0:
            continue
        max_abs = max(max_abs, float((a32 - b32).abs().max()))
        scale = max(scale, float(b32.abs().max()))
        if top1 is None and b32.dim() >= 2 and b32.shape[-1] >= 2:
            top1 = float((a32.argmax(-1) == b32.argmax(-1)).float().mean())
    rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else math.inf)
    return _Accuracy(max_abs, rel, top1)


def _token_agreement(tokens: list[Any], reference: list[Any]) -> float | None:
    if not reference:
        return None
    same = 0
    for a, b in zip(tokens, reference, strict=False):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            same += int(a.shape == b.shape and bool(torch.equal(a.cpu(), b.cpu())))
        else:
            same += int(a == b)
    return same / max(len(tokens), len(reference))


def _state_bytes(model: Any) -> int:
    """Bytes of a module's state (parameters, buffers, packed int8 weights), each storage once."""
    seen: dict[int, int] = {}

    def add(value: Any) -> None:
        if isinstance(value, torch.Tensor):
            with contextlib.suppress(RuntimeError, NotImplementedError):
                if value.is_quantized:
                    seen[id(value)] = value.numel() * value.element_size()
                    return
                storage = value.untyped_storage()
                seen[storage.data_ptr()] = storage.nbytes()
        elif isinstance(value, tuple | list):
            for item in value:
                add(item)

    if isinstance(model, torch.nn.Module):
        with contextlib.suppress(Exception):
            for value in model.state_dict(keep_vars=True).values():
                add(value)
    return sum(seen.values())


class _Budget:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = time.monotonic()

    def used(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        return self.seconds - self.used()


# ---------------------------------------------------------------------------------------------
# Measuring one variant


@dataclass
class _Setup:
    """What a variant runs: the callable, its grad mode, its autocast, its input."""

    forward: Any
    grad: Callable[[], contextlib.AbstractContextManager[Any]]
    autocast: Callable[[], contextlib.AbstractContextManager[Any]]
    example: Any
    dtype: str
    description: str
    compiled: bool = False
    notes: tuple[str, ...] = ()


def _describe(name: str, half: torch.dtype) -> str:
    h = str(half).removeprefix("torch.")
    return {
        "train-mode": "the model as given in train() mode, autograd on (the cost of forgetting)",
        "eval": "eval() + torch.inference_mode(), fp32: the reference",
        "autocast": f"eval + inference_mode under torch.autocast({h})",
        "weights-cast": f"eval + inference_mode, weights and inputs cast to {h}",
        "compile": "eval + inference_mode, torch.compile (default mode)",
        "compile-max-autotune": 'eval + inference_mode, torch.compile(mode="max-autotune")',
        "cuda-graphs": 'eval + inference_mode, torch.compile(mode="reduce-overhead")',
        "int8-dynamic": "eval + inference_mode, quantize_dynamic int8 of the Linear layers",
    }[name]


def _setup(
    name: str,
    pristine: torch.nn.Module,
    example: Any,
    where: torch.device,
    half: torch.dtype,
    compile_options: Mapping[str, Any],
) -> _Setup:
    """A fresh copy of the model prepared as variant `name` (raises when it cannot be)."""
    if name == "int8-dynamic" and where.type != "cpu":
        raise _NotRun("dynamic int8 quantization runs on the CPU only")
    if name == "cuda-graphs" and where.type != "cuda":
        raise _NotRun("CUDA graphs need a CUDA GPU")
    model = copy.deepcopy(pristine)
    if name == "int8-dynamic":
        model.eval()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            from torch.ao.quantization import quantize_dynamic

            model = quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        if not any(
            "quantized" in type(m).__module__ and "Linear" in type(m).__name__
            for m in model.modules()
        ):
            raise _NotRun("the model has no torch.nn.Linear layer to quantize")
        notes = [
            f"{w.category.__name__} from quantize_dynamic: {str(w.message).splitlines()[0]}"[:300]
            for w in caught[:1]
        ]
        fastpath = any(
            isinstance(m, torch.nn.TransformerEncoderLayer | torch.nn.MultiheadAttention)
            for m in model.modules()
        )
        if fastpath:
            notes.append(
                "the fused attention fast path is turned off for this variant (it reads the "
                "Linear layers' .weight, which quantized layers do not have)"
            )
        return _Setup(
            model.to(where),
            _inference_without_mha_fastpath if fastpath else torch.inference_mode,
            contextlib.nullcontext,
            example,
            "int8 weights, float32 activations",
            _describe(name, half),
            notes=tuple(notes),
        )
    model = model.to(where)
    no_autocast: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext
    description = _describe(name, half)
    if name == "train-mode":
        model.train()
        return _Setup(model, torch.enable_grad, no_autocast, example, "float32", description)
    model.eval()
    if name == "autocast":

        def autocast() -> contextlib.AbstractContextManager[Any]:
            return torch.autocast(device_type=where.type, dtype=half)

        dtype = str(half).removeprefix("torch.")
        return _Setup(model, torch.inference_mode, autocast, example, dtype, description)
    if name == "weights-cast":
        model = model.to(half)
        dtype = str(half).removeprefix("torch.")
        cast = _cast_floats(example, half)
        return _Setup(model, torch.inference_mode, no_autocast, cast, dtype, description)
    if name in ("compile", "compile-max-autotune", "cuda-graphs"):
        if not hasattr(torch, "compile"):
            raise _NotRun("this PyTorch has no torch.compile")
        options = dict(compile_options)
        if name == "compile-max-autotune":
            options["mode"] = "max-autotune"
        elif name == "cuda-graphs":
            options["mode"] = "reduce-overhead"
        torch.compiler.reset()
        compiled = torch.compile(model, **options)
        return _Setup(
            compiled, torch.inference_mode, no_autocast, example, "float32", description, True
        )
    return _Setup(model, torch.inference_mode, no_autocast, example, "float32", description)


@contextlib.contextmanager
def _inference_without_mha_fastpath() -> Iterator[None]:
    """inference_mode with the fused attention fast path of nn.MultiheadAttention and
    nn.TransformerEncoderLayer off (put back as it was afterwards)."""
    before = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.inference_mode():
            yield
    finally:
        torch.backends.mha.set_fastpath_enabled(before)


def _not_run_row(name: str, description: str, reason: str) -> InferenceVariant:
    return InferenceVariant(
        name=name,
        description=description,
        available=False,
        reason=reason,
        dtype=None,
        latency=None,
        p50_ms=None,
        p95_ms=None,
        p99_ms=None,
        throughput_per_s=None,
        speedup_vs_eval=None,
        first_call_ms=None,
        peak_memory_bytes=None,
        time_to_first_token_ms=None,
        tokens_per_s=None,
        max_abs_error=None,
        max_rel_error=None,
        top1_agreement=None,
        token_agreement=None,
        accuracy_ok=None,
    )


class _NotRun(Exception):
    """A variant that does not apply here (its message is the reason)."""


@dataclass
class _Timed:
    stats: Stats
    samples: list[float]
    first_call_ms: float
    firsts: list[float]
    gaps: list[float]
    peak: int | None
    output: Any
    tokens: list[Any]


def _run_requests(
    setup: _Setup,
    where: torch.device,
    *,
    warmup: int,
    iters: int,
    seconds: float,
    generate: Generate | None,
    reference_call: bool = True,
) -> _Timed:
    """Warm up, time up to `iters` requests (at least 3, fewer when `seconds` run out), then
    one more request for the peak memory and the outputs."""

    def request() -> Any:
        if generate is not None:
            return generate(setup.forward, setup.example)
        return call_model(setup.forward, setup.example)

    samples: list[float] = []
    firsts: list[float] = []
    gaps: list[float] = []
    with setup.grad(), setup.autocast():
        first_call_ms = math.nan
        for index in range(max(1, warmup)):
            total, _, _ = _one_request(lambda _: request(), None, where)
            if index == 0:
                first_call_ms = total
        timed_begin = time.monotonic()
        for index in range(iters):
            total, first, between = _one_request(lambda _: request(), None, where)
            samples.append(total)
            if first is not None and between is not None:
                firsts.append(first)
                gaps.extend(between)
            if index >= 2 and time.monotonic() - timed_begin > seconds:
                break
        peak = _peak_of(setup, where, request)
        output: Any = None
        tokens: list[Any] = []
        if reference_call:
            if generate is not None:
                tokens = [_detach(t) for t in generate(setup.forward, setup.example)]
                with contextlib.suppress(Exception):
                    output = _detach(call_model(setup.forward, setup.example))
            else:
                output = _detach(call_model(setup.forward, setup.example))
        synchronize(where)
    return _Timed(Stats.of(samples), samples, first_call_ms, firsts, gaps, peak, output, tokens)


def _detach(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple | list):
        return type(value)(_detach(v) for v in value)
    if isinstance(value, Mapping):
        return {k: _detach(v) for k, v in value.items()}
    if hasattr(value, "to_tuple"):
        return _detach(value.to_tuple())
    return value


def _drain(value: Any) -> None:
    if isinstance(value, Iterator) and not isinstance(value, torch.Tensor):
        for _ in value:
            pass


def _peak_of(setup: _Setup, where: torch.device, request: Callable[[], Any]) -> int | None:
    """Peak memory of one request: ``torch.cuda.max_memory_allocated`` on a GPU; on the CPU the
    model's state plus the input plus the most tensor bytes the profiler's [memory] records show
    allocated during the request."""
    synchronize(where)
    if where.type == "cuda":
        torch.cuda.reset_peak_memory_stats(where)
        _drain(request())
        synchronize(where)
        return int(torch.cuda.max_memory_allocated(where))
    model = getattr(setup.forward, "_orig_mod", setup.forward)
    live = _state_bytes(model) + sum(t.untyped_storage().nbytes() for t in _tensors(setup.example))
    try:
        activities = [torch.profiler.ProfilerActivity.CPU]
        with torch.profiler.profile(activities=activities, profile_memory=True) as prof:
            _drain(request())
        return live + _cpu_tensor_bytes_above_start(prof)
    except Exception:  # a profiler already running, or one that cannot record here
        return None


# ---------------------------------------------------------------------------------------------
# The batch sweep


def _knee(points: Sequence[BatchPoint]) -> tuple[int | None, str]:
    """The smallest batch reaching KNEE_SHARE of the best throughput, when a larger batch was
    measured and did not raise throughput further. Throughput here is batch / p50 latency, so
    that a few requests interrupted by a busy machine do not move the knee."""
    if len(points) < 2:
        return None, "too few batch sizes for a knee"
    best = max(p.p50_throughput_per_s for p in points)
    knee = next(p for p in points if p.p50_throughput_per_s >= KNEE_SHARE * best)
    if knee is points[-1]:
        return None, (
            f"no knee: throughput still rises at the largest batch measured ({knee.batch_size})"
        )
    if knee is points[0]:
        return knee.batch_size, (
            f"knee at batch {knee.batch_size}: batching does not raise throughput here "
            "(latency grows with the batch from the start)"
        )
    return knee.batch_size, (
        f"knee at batch {knee.batch_size}: {knee.p50_throughput_per_s:,.1f} items/s at p50, "
        f"{knee.p50_throughput_per_s / points[0].p50_throughput_per_s:.1f}x batch "
        f"{points[0].batch_size}; larger batches add "
        "latency for under "
        f"{(1 - KNEE_SHARE) * 100:.0f} % more throughput"
    )


def _sweep(
    pristine: torch.nn.Module,
    example: Any,
    where: torch.device,
    *,
    make_batch: Callable[[int], Any] | None,
    batch_sizes: Sequence[int],
    max_latency_ms: float | None,
    max_memory_bytes: int | None,
    p99_ms: float | None,
    warmup: int,
    iters: int,
    budget: _Budget,
    seed: int,
) -> BatchSweep:
    base = batch_size_of(example)
    points: list[BatchPoint] = []
    stopped = f"reached the largest batch size asked for ({batch_sizes[-1]})"
    _seed(seed)
    model = copy.deepcopy(pristine).to(where).eval()
    setup = _Setup(
        model,
        torch.inference_mode,
        contextlib.nullcontext,
        None,
        "float32",
        "sweep",
    )
    for size in batch_sizes:
        if budget.left() <= 0:
            stopped = "the time budget was spent"
            break
        if make_batch is not None:
            setup.example = to_device(make_batch(size), where)
        elif base is None:
            stopped = "the example has no batch dimension (pass make_batch)"
            break
        else:
            setup.example = _repeat_to(example, size, base)
        try:
            timed = _run_requests(
                setup,
                where,
                warmup=warmup,
                iters=iters,
                seconds=max(0.0, budget.left()) / 4,
                generate=None,
                reference_call=False,
            )
        except torch.cuda.OutOfMemoryError:
            stopped = f"out of memory at batch {size}"
            if where.type == "cuda":
                torch.cuda.empty_cache()
            break
        except Exception as error:
            stopped = f"batch {size} failed: {_reason(error)}"
            break
        s = timed.stats
        points.append(
            BatchPoint(
                batch_size=size,
                p50_ms=s.p50_ms,
                p99_ms=s.p99_ms,
                throughput_per_s=size * 1000.0 / s.mean_ms if s.mean_ms > 0 else math.nan,
                p50_throughput_per_s=size * 1000.0 / s.p50_ms if s.p50_ms > 0 else math.nan,
                peak_memory_bytes=timed.peak,
            )
        )
        if max_latency_ms is not None and s.p99_ms > max_latency_ms:
            stopped = f"p99 {s.p99_ms:.3f} ms at batch {size} is over the limit {max_latency_ms} ms"
            break
        if (
            max_memory_bytes is not None
            and timed.peak is not None
            and timed.peak > max_memory_bytes
        ):
            stopped = f"peak memory {_mib(timed.peak)} at batch {size} is over the limit"
            break
    knee, note = _knee(points)
    within = None
    if p99_ms is not None:
        fitting = [p.batch_size for p in points if p.p99_ms <= p99_ms]
        within = max(fitting) if fitting else None
    return BatchSweep(tuple(points), knee, note, p99_ms, within, stopped)


# ---------------------------------------------------------------------------------------------
# The reading


def _reading(
    variants: Sequence[InferenceVariant], sweep: BatchSweep | None
) -> tuple[str, str | None]:
    ran = {v.name: v for v in variants if v.available and v.latency is not None}
    parts: list[str] = []
    reference = ran.get("eval")
    if reference is None or reference.latency is None:
        return "The eval reference could not run, so nothing can be compared.", None
    train = ran.get("train-mode")
    if train is not None and train.latency is not None and train.p50_ms and reference.p50_ms:
        change = train.p50_ms / reference.p50_ms - 1.0
        drift = (
            f", and its outputs differ from eval's by up to {train.max_rel_error:.1e} (relative)"
            if train.max_rel_error
            else ""
        )
        parts.append(
            f"Forgetting eval() and inference_mode() changes p50 latency by {change * 100:+.0f} % "
            f"({train.p50_ms:.3f} ms against {reference.p50_ms:.3f} ms){drift}."
        )
    candidates = [v for v in ran.values() if v.name not in ("train-mode", "eval") and v.accuracy_ok]
    rejected = [
        v for v in ran.values() if v.name not in ("train-mode", "eval") and v.accuracy_ok is False
    ]
    best = reference
    for v in candidates:
        if (
            v.latency is not None
            and best.latency is not None
            and (
                v.latency.ci95_high_ms < best.latency.ci95_low_ms
                and v.latency.mean_ms < best.latency.mean_ms
            )
        ):
            best = v
    if best is reference:
        parts.append(
            f"No variant is faster than eval() + inference_mode() in fp32 beyond the noise "
            f"(p50 {reference.p50_ms:.3f} ms, {_num(reference.throughput_per_s, ',.1f')} "
            "items/s): use that."
        )
    else:
        err = _num(best.max_rel_error, ".1e")
        top1 = (
            f", top-1 agreement {best.top1_agreement * 100:.1f} %"
            if best.top1_agreement is not None
            else ""
        )
        parts.append(
            f"Use {best.name} ({best.description}): p50 {_num(best.p50_ms, '.3f')} ms against "
            f"{reference.p50_ms:.3f} ms, {_num(best.speedup_vs_eval, '.2f')}x the throughput of "
            f"eval fp32, at a measured accuracy cost of {err} largest relative error{top1}, "
            f"peak memory {_mib(best.peak_memory_bytes)} against "
            f"{_mib(reference.peak_memory_bytes)}."
        )
        if best.first_call_ms is not None and best.name.startswith(("compile", "cuda")):
            parts.append(f"Its first call took {best.first_call_ms / 1000:.1f} s (compilation).")
    faster_rejected = [
        v
        for v in rejected
        if v.speedup_vs_eval is not None
        and best.speedup_vs_eval is not None
        and v.speedup_vs_eval > best.speedup_vs_eval
    ]
    for v in faster_rejected:
        parts.append(
            f"{v.name} is faster ({_num(v.speedup_vs_eval, '.2f')}x) but its outputs move too far "
            f"(relative error {_num(v.max_rel_error, '.1e')}"
            + (
                f", top-1 agreement {v.top1_agreement * 100:.1f} %"
                if v.top1_agreement is not None
                else ""
            )
            + "): check it on real data before using it."
        )
    if sweep is not None and sweep.points:
        sentence = sweep.knee_note[0].upper() + sweep.knee_note[1:] + "."
        if sweep.p99_target_ms is not None:
            sentence += (
                f" The largest batch with p99 under {sweep.p99_target_ms} ms is "
                f"{sweep.largest_within_target}."
                if sweep.largest_within_target is not None
                else f" No batch measured meets p99 under {sweep.p99_target_ms} ms."
            )
        parts.append(sentence)
    not_run = [v.name for v in variants if not v.available]
    if not_run:
        parts.append(f"Not run (reasons in the table): {', '.join(not_run)}.")
    return " ".join(parts), best.name


def _reason(error: BaseException) -> str:
    first_line = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {first_line}"[:300] if first_line else type(error).__name__


def _half_dtype(where: torch.device) -> torch.dtype:
    if where.type == "cuda" and not torch.cuda.is_bf16_supported():
        return torch.float16
    return torch.bfloat16


# max-autotune benchmarks kernel candidates: it takes several times the default compile.
AUTOTUNE_COST = 10.0


def _autotune_skip(max_autotune: bool | None, compile_s: float | None, left_s: float) -> str | None:
    """Why compile-max-autotune does not run, or None when it does."""
    if max_autotune is True:
        return None
    if max_autotune is False:
        return "disabled by the caller (max_autotune=False)"
    if compile_s is None:
        return (
            "skipped to keep within the time budget: the default compile did not run, so its "
            "cost is unknown (max_autotune=True forces it)"
        )
    if left_s < AUTOTUNE_COST * compile_s:
        return (
            f"skipped to keep within the time budget: it takes about {AUTOTUNE_COST:.0f}x the "
            f"default compile ({compile_s:.1f} s), {max(0.0, left_s):.0f} s left "
            "(max_autotune=True forces it)"
        )
    return None


def _default_batches(limit: int) -> list[int]:
    sizes = [1]
    while sizes[-1] * 2 <= limit:
        sizes.append(sizes[-1] * 2)
    return sizes


# ---------------------------------------------------------------------------------------------
# The lab


def inference_lab(
    model: torch.nn.Module,
    example: Any,
    *,
    generate: Generate | None = None,
    device: torch.device | str | None = None,
    warmup: int = 3,
    iters: int = 30,
    variants: Sequence[str] | None = None,
    compile_options: Mapping[str, Any] | None = None,
    max_autotune: bool | None = None,
    sweep: bool = True,
    batch_sizes: Sequence[int] | None = None,
    max_batch: int = 64,
    max_latency_ms: float | None = None,
    max_memory_bytes: int | None = None,
    p99_ms: float | None = None,
    make_batch: Callable[[int], Any] | None = None,
    time_budget_s: float = 300.0,
    threads: int | None = None,
    seed: int = 0,
    warn: bool = True,
) -> InferenceLabResult:
    """Measure the inference techniques on `model` with `example`, each variant on a fresh
    copy of the model (``copy.deepcopy``; `model` itself is not changed):

    - ``train-mode``: the model in ``train()`` mode with autograd on, as a script that forgot
      both would run it (its outputs differ where dropout runs);
    - ``eval``: ``eval()`` + ``torch.inference_mode()`` in fp32, the reference for every
      accuracy figure;
    - ``autocast``: under ``torch.autocast`` in bf16 (fp16 on a GPU without bf16);
    - ``weights-cast``: weights and floating inputs cast to bf16 / fp16;
    - ``compile``: ``torch.compile(model, **compile_options)``; ``compile-max-autotune`` with
      ``mode="max-autotune"`` only when ``max_autotune=True``, or when it is None and at least
      ten times what the default compile took is left of the budget; ``cuda-graphs`` with
      ``mode="reduce-overhead"`` on a GPU only;
    - ``int8-dynamic``: ``torch.ao.quantization.quantize_dynamic`` of the Linear layers, on the
      CPU only.

    Each variant is warmed up (`warmup` calls, at least one, the first recorded as
    ``first_call_ms``: the compilation), then up to `iters` requests are timed end to end with
    the device synchronised (fewer, at least 3, when its share of the budget runs out).
    Throughput counts the example's batch size (leading dimension of its first tensor) per
    second. With
    `generate`, a request is ``generate(model, example)``, an iterator of tokens: the first
    token latency, tokens per second and the share of tokens equal to the reference's are
    added, and the output accuracy compares ``model(example)``.

    Accuracy: the largest absolute difference of every output tensor from the eval fp32
    reference, that over the reference's largest magnitude (``max_rel_error``; element-wise
    ratios blow up near zero), and for outputs shaped like logits (2 or more dimensions, the
    last at least 2) the share of rows whose argmax agrees. A variant more than 5 % off, or
    with top-1 agreement under 99 %, is not recommended, however fast.

    Peak memory: ``torch.cuda.max_memory_allocated`` during one request on a GPU; on the CPU
    tensor memory: the model's state (packed int8 weights counted) and the input plus the most
    tensor bytes the profiler's ``[memory]`` records show allocated during one request (not the
    process' resident set).

    The batch sweep (eval + inference_mode, fp32, `sweep=True`) times batch sizes 1, 2, 4, ...
    up to `max_batch` (or `batch_sizes`), the example's tensors repeated along their leading
    dimension (or ``make_batch(size)``), stopping early past `max_latency_ms` (p99), past
    `max_memory_bytes`, at out-of-memory or when the budget is spent. The knee is the smallest
    batch reaching 90 % of the best throughput at p50 (batch / p50 latency, so that a few
    interrupted requests do not move it; None while throughput still rises at the largest
    batch); with `p99_ms`, the largest batch whose p99 meets it. There is no sweep with
    `generate` (``sweep`` is then None).

    A variant that fails (compile unavailable, quantization unsupported, an error in the
    model) is a row with its reason, and the lab goes on; only the eval reference must run.
    `time_budget_s` bounds the lab: variants not started when it is spent are rows saying so.
    Warnings (wide spread, slow first iterations) are issued as `MeasurementWarning` unless
    ``warn=False`` and kept in ``warnings``; ``str(result)`` spells them out only when they were
    not issued, so that each is shown once. `threads` sets ``torch.set_num_threads`` for the
    lab (put back afterwards): on a small shared CPU one thread gives steadier figures, as
    OpenMP workers otherwise wait for cores the neighbours hold.
    """
    if threads is not None and threads < 1:
        raise ValueError("inference_lab: threads must be >= 1")
    with _num_threads(threads):
        return _inference_lab(
            model,
            example,
            generate=generate,
            device=device,
            warmup=warmup,
            iters=iters,
            variants=variants,
            compile_options=compile_options,
            max_autotune=max_autotune,
            sweep=sweep,
            batch_sizes=batch_sizes,
            max_batch=max_batch,
            max_latency_ms=max_latency_ms,
            max_memory_bytes=max_memory_bytes,
            p99_ms=p99_ms,
            make_batch=make_batch,
            time_budget_s=time_budget_s,
            seed=seed,
            warn=warn,
        )


@contextlib.contextmanager
def _num_threads(threads: int | None) -> Iterator[None]:
    if threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _inference_lab(
    model: torch.nn.Module,
    example: Any,
    *,
    generate: Generate | None,
    device: torch.device | str | None,
    warmup: int,
    iters: int,
    variants: Sequence[str] | None,
    compile_options: Mapping[str, Any] | None,
    max_autotune: bool | None,
    sweep: bool,
    batch_sizes: Sequence[int] | None,
    max_batch: int,
    max_latency_ms: float | None,
    max_memory_bytes: int | None,
    p99_ms: float | None,
    make_batch: Callable[[int], Any] | None,
    time_budget_s: float,
    seed: int,
    warn: bool,
) -> InferenceLabResult:
    if warmup < 0 or iters < 1:
        raise ValueError("inference_lab: warmup must be >= 0 and iters >= 1")
    if not isinstance(model, torch.nn.Module):
        raise TypeError("inference_lab: model must be a torch.nn.Module")
    unknown = set(variants or ()) - set(VARIANTS)
    if unknown:
        raise ValueError(f"inference_lab: unknown variants {sorted(unknown)}; known: {VARIANTS}")
    chosen = [n for n in VARIANTS if variants is None or n in variants or n == "eval"]
    where = resolve_device(device)
    budget = _Budget(time_budget_s)
    half = _half_dtype(where)
    options = dict(compile_options or {})
    try:
        pristine = copy.deepcopy(model).cpu()
    except Exception as error:
        raise ValueError(
            f"inference_lab: the model cannot be copied ({_reason(error)}); every variant "
            "needs a fresh copy"
        ) from error
    example = to_device(example, where)
    batch = batch_size_of(example)
    if generate is not None and batch is not None:
        tensor = first_tensor(example)
        if tensor is not None and tensor.dim() == 1:
            batch = 1
    items = batch or 1
    problems: list[str] = []
    measured: dict[str, InferenceVariant] = {}
    reference: _Timed | None = None
    compile_s: float | None = None
    order = ["eval", *[n for n in chosen if n != "eval"]]
    for position, name in enumerate(order):
        description = _describe(name, half)

        def not_run(reason: str, name: str = name, description: str = description) -> None:
            measured[name] = _not_run_row(name, description, reason)

        if name == "compile-max-autotune":
            skip = _autotune_skip(max_autotune, compile_s, budget.left())
            if skip is not None:
                not_run(skip)
                continue
        if name != "eval" and budget.left() <= 0:
            not_run(f"the time budget ({time_budget_s:.0f} s) was spent")
            continue
        _seed(seed)
        started = time.monotonic()
        share = max(0.0, budget.left()) / max(1, len(order) - position + int(sweep))
        try:
            setup = _setup(name, pristine, example, where, half, options)
            timed = _run_requests(
                setup, where, warmup=warmup, iters=iters, seconds=share, generate=generate
            )
        except _NotRun as why:
            not_run(str(why))
            continue
        except Exception as error:
            if name == "eval":
                raise
            not_run(_reason(error))
            if name.startswith(("compile", "cuda")):
                torch.compiler.reset()
            continue
        finally:
            if where.type == "cuda":
                torch.cuda.empty_cache()
        if setup.compiled:
            torch.compiler.reset()
            if name == "compile":
                compile_s = time.monotonic() - started
        if name == "eval":
            reference = timed
        assert reference is not None
        accuracy = _compare(timed.output, reference.output)
        notes: list[str] = list(setup.notes)
        if timed.output is None and generate is not None:
            notes.append("model(example) failed: outputs not compared")
        s = timed.stats
        problems += timing_warnings(timed.samples, s, f"inference_lab {name}")
        per_token = Stats.of(timed.gaps) if timed.gaps else None
        ok: bool | None = None
        if accuracy.max_rel is not None:
            ok = accuracy.max_rel <= REL_TOLERANCE and (
                accuracy.top1 is None or accuracy.top1 >= 1 - TOP1_TOLERANCE
            )
        measured[name] = InferenceVariant(
            name=name,
            description=description,
            available=True,
            reason=None,
            dtype=setup.dtype,
            latency=s,
            p50_ms=s.p50_ms,
            p95_ms=s.p95_ms,
            p99_ms=s.p99_ms,
            throughput_per_s=items * 1000.0 / s.mean_ms if s.mean_ms > 0 else None,
            speedup_vs_eval=None,
            first_call_ms=timed.first_call_ms,
            peak_memory_bytes=timed.peak,
            time_to_first_token_ms=Stats.of(timed.firsts).p50_ms if timed.firsts else None,
            tokens_per_s=(
                1000.0 / per_token.mean_ms if per_token and per_token.mean_ms > 0 else None
            ),
            max_abs_error=accuracy.max_abs,
            max_rel_error=accuracy.max_rel,
            top1_agreement=accuracy.top1,
            token_agreement=(
                _token_agreement(timed.tokens, reference.tokens) if generate is not None else None
            ),
            accuracy_ok=ok,
            notes=tuple(notes),
        )
        del setup, timed
    base = measured["eval"].throughput_per_s

    def speedup(row: InferenceVariant) -> float | None:
        per_s = row.throughput_per_s
        return per_s / base if base and per_s else None

    rows = tuple(
        dataclasses.replace(measured[n], speedup_vs_eval=speedup(measured[n])) for n in chosen
    )
    result_sweep: BatchSweep | None = None
    if sweep and generate is None:
        sizes = list(batch_sizes) if batch_sizes else _default_batches(max_batch)
        result_sweep = _sweep(
            pristine,
            example,
            where,
            make_batch=make_batch,
            batch_sizes=sorted(sizes),
            max_latency_ms=max_latency_ms,
            max_memory_bytes=max_memory_bytes,
            p99_ms=p99_ms,
            warmup=max(1, warmup),
            iters=max(3, min(iters, 20)),
            budget=budget,
            seed=seed,
        )
    reading, recommended = _reading(rows, result_sweep)
    if warn:
        for problem in problems:
            warnings.warn(problem, MeasurementWarning, stacklevel=3)
    kind = (
        "torch.cuda.max_memory_allocated during one request (tensors on the GPU)"
        if where.type == "cuda"
        else "CPU tensor memory: the model's state and the input plus the most tensor bytes "
        "allocated during one request (profiler [memory] records), not the resident set"
    )
    return InferenceLabResult(
        variants=rows,
        sweep=result_sweep,
        recommended=recommended,
        reading=reading,
        peak_memory_kind=kind,
        batch_size=batch,
        warmup=warmup,
        iters=iters,
        time_budget_s=time_budget_s,
        elapsed_s=budget.used(),
        conditions=Conditions.capture(where, dtype=torch.float32, batch_size=batch),
        warnings=tuple(problems),
        warnings_issued=warn,
    )

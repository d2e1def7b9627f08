"""latency: the inference view, per-request latency percentiles, throughput, and for a
generate-style callable time to first token and time per output token."""

from __future__ import annotations

import contextlib
import itertools
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import torch

from ._batch import batch_size_of, call_model, first_tensor
from ._results import (
    Conditions,
    MeasurementWarning,
    ResultMixin,
    Stats,
    rows_to_pandas,
    timing_warnings,
    warning_lines,
)
from ._timing import now_ns, resolve_device, synchronize

if TYPE_CHECKING:
    import pandas

GradMode = Literal["inference_mode", "no_grad"]


@dataclass(frozen=True)
class Request:
    request: int
    ms: float
    first_token_ms: float | None
    tokens: int | None


@dataclass(frozen=True)
class LatencyResult(ResultMixin):
    """Per-request latency and throughput of a model or callable under inference."""

    label: str
    stats: Stats  # per request, end to end (call to last output, device synchronised)
    batch_size: int | None
    requests_per_s: float
    samples_per_s: float | None
    generate: bool  # the callable yielded its output piece by piece
    time_to_first_token: Stats | None
    time_per_output_token: Stats | None  # gaps between consecutive yielded tokens
    tokens_per_s: float | None  # tokens after the first, per second of decoding
    grad_mode: str
    model_was_training: bool
    warmup: int
    iters: int
    requests: tuple[Request, ...]
    conditions: Conditions
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    warnings_issued: bool = False  # also issued as MeasurementWarning (warn=True)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per timed request: ``request``, ``ms``, ``first_token_ms``, ``tokens``."""
        return rows_to_pandas(self.requests)

    def __str__(self) -> str:
        s = self.stats
        lines = [
            f"{self.label}: p50 {s.p50_ms:.3f} ms  p95 {s.p95_ms:.3f} ms  p99 {s.p99_ms:.3f} ms  "
            f"(mean {s.mean_ms:.3f}, n={s.count}), {self.requests_per_s:,.1f} requests/s"
            + (f", {self.samples_per_s:,.1f} samples/s" if self.samples_per_s else "")
        ]
        if self.time_to_first_token is not None and self.time_per_output_token is not None:
            lines.append(
                f"  time to first token p50 {self.time_to_first_token.p50_ms:.3f} ms, "
                f"per output token p50 {self.time_per_output_token.p50_ms:.3f} ms"
                + (f" ({self.tokens_per_s:,.1f} tokens/s)" if self.tokens_per_s else "")
            )
        lines += [f"  note: {n}" for n in self.notes]
        lines += warning_lines(self.warnings, self.warnings_issued)
        return "\n".join(lines)


def _modules_in_training(model: Any) -> bool:
    if isinstance(model, torch.nn.Module):
        return any(module.training for module in model.modules())
    return False


def _one_request(
    model: Callable[..., Any], example: Any, device: torch.device
) -> tuple[float, float | None, list[float] | None]:
    """Milliseconds to the end; for a generator, also to its first item and between items."""
    synchronize(device)
    begin = now_ns()
    output = call_model(model, example)
    if isinstance(output, Iterator) and not isinstance(output, torch.Tensor):
        marks: list[int] = []
        for _ in output:
            synchronize(device)
            marks.append(now_ns())
        end = marks[-1] if marks else now_ns()
        first = (marks[0] - begin) / 1e6 if marks else None
        gaps = [(b - a) / 1e6 for a, b in itertools.pairwise(marks)]
        return (end - begin) / 1e6, first, gaps
    synchronize(device)
    return (now_ns() - begin) / 1e6, None, None


def latency(
    model: Callable[..., Any],
    example: Any,
    *,
    warmup: int = 10,
    iters: int = 200,
    batch_size: int | None = None,
    device: torch.device | str | None = None,
    grad_mode: GradMode = "inference_mode",
    set_eval: bool = True,
    label: str | None = None,
    warn: bool = True,
) -> LatencyResult:
    """Inference latency of `model(example)`: per-request percentiles and throughput.

    `example` is passed as ``model(example)``; a tuple or list as positional arguments, a dict
    as keyword arguments. Each request runs under ``torch.inference_mode()`` (or
    ``torch.no_grad()``), is timed end to end with a monotonic clock and the device
    synchronised, so it is the latency a caller sees.

    A generate-style callable returns an iterator (a generator yielding tokens): the request
    then ends with its last item, and the result adds the time to first token, the time per
    output token (gaps between items) and tokens per second.

    A module still in training mode (dropout, batch-norm statistics) is measured under
    ``eval()`` and put back afterwards (``set_eval=True``, said in ``notes``); with
    ``set_eval=False`` it is measured as it is, with a warning.
    """
    if warmup < 0 or iters < 1:
        raise ValueError("latency: warmup must be >= 0 and iters >= 1")
    where = resolve_device(device)
    name = label or getattr(model, "__name__", None) or type(model).__name__
    was_training = _modules_in_training(model)
    notes: list[str] = []
    problems: list[str] = []
    restore: dict[torch.nn.Module, bool] = {}
    if was_training and isinstance(model, torch.nn.Module):
        if set_eval:
            restore = {m: m.training for m in model.modules()}
            model.eval()
            notes.append(
                "the model was in training mode: measured under eval() and put back in "
                "training mode afterwards"
            )
        else:
            problems.append(
                f"{name} is in training mode: dropout and batch norm run as in training, so "
                "these are not inference figures; call model.eval()"
            )
    inferred_batch = batch_size is None
    if batch_size is None:
        batch_size = batch_size_of(example)
    guard = torch.inference_mode if grad_mode == "inference_mode" else torch.no_grad
    totals: list[float] = []
    firsts: list[float] = []
    gaps: list[float] = []
    requests: list[Request] = []
    generate = False
    try:
        with guard():
            for _ in range(warmup):
                _one_request(model, example, where)
            for i in range(iters):
                total, first, between = _one_request(model, example, where)
                totals.append(total)
                tokens = None
                if first is not None and between is not None:
                    generate = True
                    firsts.append(first)
                    gaps.extend(between)
                    tokens = len(between) + 1
                requests.append(Request(i, total, first, tokens))
    finally:
        for module, training in restore.items():
            module.train(training)
    if inferred_batch and generate and _is_one_sequence(example):
        # A 1-D prompt of a generator is one request's tokens, not a batch of that many.
        batch_size = 1
        notes.append("the example's first tensor is 1-D: taken as one prompt (batch size 1)")
    stats = Stats.of(totals)
    problems += timing_warnings(totals, stats, name)
    if warn:
        for problem in problems:
            warnings.warn(problem, MeasurementWarning, stacklevel=2)
    per_s = 1000.0 / stats.mean_ms if stats.mean_ms > 0 else float("nan")
    per_token = Stats.of(gaps) if generate and gaps else None
    return LatencyResult(
        label=name,
        stats=stats,
        batch_size=batch_size,
        requests_per_s=per_s,
        samples_per_s=per_s * batch_size if batch_size else None,
        generate=generate,
        time_to_first_token=Stats.of(firsts) if generate else None,
        time_per_output_token=per_token,
        tokens_per_s=(
            1000.0 / per_token.mean_ms if per_token is not None and per_token.mean_ms > 0 else None
        ),
        grad_mode=grad_mode,
        model_was_training=was_training,
        warmup=warmup,
        iters=iters,
        requests=tuple(requests),
        conditions=Conditions.capture(where, batch_size=batch_size, dtype=_dtype_of(model)),
        notes=tuple(notes),
        warnings=tuple(problems),
        warnings_issued=warn,
    )


def _is_one_sequence(example: Any) -> bool:
    tensor = first_tensor(example)
    return tensor is not None and tensor.dim() == 1


def _dtype_of(model: Any) -> torch.dtype | None:
    if isinstance(model, torch.nn.Module):
        with contextlib.suppress(StopIteration):
            return next(model.parameters()).dtype
    return None

"""The diagnosis' findings as typed, immutable objects (docs/json-schema.md,
``diagnosis.findings``): built from the dicts the compiled core makes from its own structs, or
from a JSON document's entries, which have the same keys."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["CodeLocation", "EventRefs", "Evidence", "ExpectedGain", "Finding"]


@dataclass(frozen=True)
class EventRefs:
    """The trace events a figure rests on: a name, how many, when, in which steps."""

    name: str
    count: int
    first_start_us: float
    last_end_us: float
    steps: tuple[int, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EventRefs:
        return cls(
            name=str(data["name"]),
            count=int(data["count"]),
            first_start_us=float(data["first_start_us"]),
            last_end_us=float(data["last_end_us"]),
            steps=tuple(int(step) for step in data["steps"]),
        )


@dataclass(frozen=True)
class Evidence:
    """One figure of a finding: ``value`` in ``unit`` (``"ms/step"``, ``"%"``, ...)."""

    label: str
    value: float
    unit: str
    events: tuple[EventRefs, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Evidence:
        return cls(
            label=str(data["label"]),
            value=float(data["value"]),
            unit=str(data["unit"]),
            events=tuple(EventRefs.from_dict(refs) for refs in data["events"]),
        )


@dataclass(frozen=True)
class ExpectedGain:
    """The saving per step a finding promises: everything (bound) and what the fix typically
    achieves (likely), in µs and as a share of the mean kept step."""

    bound_us_per_step: float
    likely_us_per_step: float
    bound_share_of_step: float
    likely_share_of_step: float
    method: str

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExpectedGain:
        return cls(
            bound_us_per_step=float(data["bound_us_per_step"]),
            likely_us_per_step=float(data["likely_us_per_step"]),
            bound_share_of_step=float(data["bound_share_of_step"]),
            likely_share_of_step=float(data["likely_share_of_step"]),
            method=str(data["method"]),
        )


@dataclass(frozen=True)
class CodeLocation:
    """The user's code behind a finding (traces with Python stacks or module hierarchy): the
    file and line of the first frame outside torch, site-packages and the standard library (the
    line where that function starts, as PyTorch's tracer records it), and the nn.Module path."""

    file: str | None
    line: int | None
    function: str | None
    module_path: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CodeLocation:
        line = data.get("line")
        return cls(
            file=data.get("file"),
            line=None if line is None else int(line),
            function=data.get("function"),
            module_path=data.get("module_path"),
        )


@dataclass(frozen=True)
class Finding:
    """One finding of the diagnosis (docs/json-schema.md, ``diagnosis.findings``)."""

    id: str
    title: str
    severity: str
    bottleneck: str
    phase: str
    rank: int
    evidence: tuple[Evidence, ...]
    fix: str
    expected_gain: ExpectedGain
    code: CodeLocation | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Finding:
        code = data.get("code")
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            severity=str(data["severity"]),
            bottleneck=str(data["bottleneck"]),
            phase=str(data["phase"]),
            rank=int(data["rank"]),
            evidence=tuple(Evidence.from_dict(item) for item in data["evidence"]),
            fix=str(data["fix"]),
            expected_gain=ExpectedGain.from_dict(data["expected_gain"]),
            code=None if code is None else CodeLocation.from_dict(code),
        )

    def to_dict(self) -> dict[str, Any]:
        """The finding as in the JSON document (tuples become lists)."""
        data: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        return data

    def __str__(self) -> str:
        return f"[{self.severity}] {self.title} ({self.id}; fix: {self.fix})"

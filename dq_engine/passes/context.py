"""What the passes share during one run (built by run.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from dq_engine.errors import BatchError
from dq_engine.passes.backend import Backend
from dq_engine.plan import BatchPlan, MappingKey
from dq_engine.recorder import Recorder
from dq_engine.spec import CheckSpec, JobSpec


@dataclass
class RunContext:
    spec: JobSpec
    plans: dict[str, BatchPlan]
    backend: Backend
    recorder: Recorder
    cancel: threading.Event
    # Joins a key group answers with a uniqueness check on the same column (keys.py), which the
    # join pass then leaves alone: {(source batch, target batch, mappings)}.
    shared_joins: set[tuple[str, str, MappingKey]] = field(default_factory=set)

    def runnable(self, checks: list[CheckSpec]) -> list[CheckSpec]:
        """The checks whose batches are open and that the engine does not refuse; the others end
        `error` with their batch's problem or the refusal."""
        kept = []
        for check in checks:
            if check.id in self.recorder.done:
                continue
            problem = self.recorder.problem(check)
            if problem:
                self.recorder.fail(check, BatchError(problem))
                continue
            with self.recorder.isolated([check], "preparing"):
                self.backend.refusal(check)
                kept.append(check)
        return kept

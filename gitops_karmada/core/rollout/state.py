"""A template's rollout state, as its binding record carries it (the ``gitops-karmada.io/rollout``
annotation): the revision in flight, the steps it reached, and what its gate has seen so far."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping

ROLLOUT_ANNOTATION = "gitops-karmada.io/rollout"


class RolloutPhase(enum.StrEnum):
    PROGRESSING = "Progressing"
    """Some clusters wait for their wave: the template is redone every run until it is done."""
    SUCCEEDED = "Succeeded"
    """Every cluster holds the revision and the last wave's gate passed."""
    ROLLED_BACK = "RolledBack"
    """A wave reported Unhealthy: the clusters the revision reached got the last promoted files back."""
    HELD = "Held"
    """A wave reported Unhealthy under ``onFailure: Hold``: nothing moves until the template changes."""


@dataclass(frozen=True, slots=True)
class RolloutState:
    policy: str
    """``namespace/name`` of the RolloutPolicy governing the template."""
    revision: str
    """Digest of the distinct rendered files the revision writes: what is rolled out (a cluster joining or
    leaving with the same files does not make a new revision)."""
    phase: RolloutPhase
    reached: tuple[str, ...] = ()
    """The steps promoted, in order (``plan.Step.label``)."""
    since: str = ""
    """When the last step was promoted (RFC 3339)."""
    healthy_since: str = ""
    """Since when the last step has been seen healthy, without a break; empty: not (yet)."""
    base: str = ""
    """The commit whose cluster folders hold the last promoted render (what a rollback restores)."""
    source: str = ""
    """The source commit the revision was first rendered from."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """Cluster → the source commit whose render its folder holds (empty: from before the rollout)."""
    message: str = ""
    """Why the rollout stands where it does (the rule that fired, what it waits for)."""

    @property
    def in_flight(self) -> bool:
        return self.phase is RolloutPhase.PROGRESSING

    def to_annotation(self) -> str:
        body: dict[str, Any] = {
            "policy": self.policy,
            "revision": self.revision,
            "phase": self.phase.value,
            "reached": list(self.reached),
            "since": self.since,
        }
        optional = {
            "healthySince": self.healthy_since,
            "base": self.base,
            "source": self.source,
            "sources": dict(sorted(self.sources.items())),
            "message": self.message,
        }
        body.update({name: value for name, value in optional.items() if value})
        return json.dumps(body, separators=(",", ":"), sort_keys=True)


def read_state(annotations: Mapping[str, str]) -> RolloutState | None:
    """The rollout state a record carries; None when it has none or it does not parse (a hand edit: the
    rollout starts again, which never promotes anything the gates did not pass)."""
    raw = annotations.get(ROLLOUT_ANNOTATION)
    if not raw:
        return None
    try:
        body = json.loads(raw)
        return RolloutState(
            policy=str(body["policy"]),
            revision=str(body["revision"]),
            phase=RolloutPhase(body["phase"]),
            reached=tuple(str(s) for s in body.get("reached", ())),
            since=str(body.get("since", "")),
            healthy_since=str(body.get("healthySince", "")),
            base=str(body.get("base", "")),
            source=str(body.get("source", "")),
            sources={str(k): str(v) for k, v in dict(body.get("sources", {})).items()},
            message=str(body.get("message", "")),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None

"""RolloutPolicy (``gitops-karmada.io/v1alpha1``, namespaced): a change reaches the fleet in waves.

gitops-karmada's own kind, not Karmada's (Karmada applies a change to every selected cluster at once). It
governs the templates its resource selectors select in its namespace: a change to one of them reaches the
clusters of the first wave, and each next wave once the gate of the one before has passed. Clusters in no
wave form a last wave of their own. docs/rollouts.md; the JSON schema is docs/schemas/rolloutpolicy.json.
"""

from __future__ import annotations

import enum
from typing import Literal

from pydantic import Field, field_validator, model_validator

from gitops_karmada.model.base import ApiModel, ObjectMeta
from gitops_karmada.model.durations import parse_go_duration
from gitops_karmada.model.policies import ClusterAffinity, ResourceSelector

ROLLOUT_KIND = "RolloutPolicy"
UNLISTED_WAVE = "(unlisted)"
"""The name of the implicit last wave: the target clusters no wave lists."""


class RolloutFailure(enum.StrEnum):
    ROLLBACK = "Rollback"
    """The clusters the failed revision reached get the files of the last promoted render back."""
    HOLD = "Hold"
    """Nothing moves: the reached clusters keep the new files and no further wave is promoted."""


class NewRevision(enum.StrEnum):
    RESTART = "Restart"
    """A template changed again during its rollout starts over from the first wave."""
    QUEUE = "Queue"
    """The wave in progress finishes its gate first (every folder keeps what it holds meanwhile); then the
    new revision starts from the first wave."""


class RolloutGate(ApiModel):
    """What must hold of a wave before the next one is promoted; every given condition, together."""

    healthy_for: str | None = None
    """The governed template reported Healthy, applied as rendered, on every cluster of the wave, in fresh
    snapshots, for this long (a Go duration: ``5m``)."""
    commit_status: str | None = None
    """A commit status of this context on the commit that promoted the wave has reached ``success``."""
    approval: bool = False
    """A commit approving the wave (``gitops-karmada rollout approve``) was made after it was promoted."""

    @field_validator("healthy_for")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None and parse_go_duration(value) < 0:
            raise ValueError("must not be negative")
        return value

    @property
    def healthy_seconds(self) -> float | None:
        return parse_go_duration(self.healthy_for) if self.healthy_for is not None else None


class RolloutWave(ApiModel):
    name: str = Field(min_length=1, max_length=63, pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    clusters: ClusterAffinity
    """The wave's clusters: names and/or a label or field selector, as a placement's clusterAffinity."""
    gate: RolloutGate | None = None
    """This wave's gate, instead of the policy's."""


class RolloutPolicySpec(ApiModel):
    resource_selectors: tuple[ResourceSelector, ...] = Field(min_length=1)
    waves: tuple[RolloutWave, ...] = Field(min_length=1)
    gate: RolloutGate = Field(default_factory=RolloutGate)
    """The gate of every wave that has none of its own (none: a wave passes once it is promoted)."""
    bake_time: str = "0s"
    """The least time between a wave's promotion and the next one's, whatever the gate says."""
    on_failure: RolloutFailure = RolloutFailure.ROLLBACK
    """What a wave reporting Unhealthy (in a fresh snapshot, applied as rendered) does to the rollout."""
    on_new_revision: NewRevision = NewRevision.RESTART
    max_in_progress: int | None = Field(default=None, ge=1)
    """At most this many clusters promoted and not yet past their gate at once: a larger wave is promoted
    in batches of this size (by cluster name)."""

    @field_validator("bake_time")
    @classmethod
    def _bake(cls, value: str) -> str:
        if parse_go_duration(value) < 0:
            raise ValueError("must not be negative")
        return value

    @model_validator(mode="after")
    def _unique_waves(self) -> RolloutPolicySpec:
        names = [wave.name for wave in self.waves]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"wave names must be unique: {', '.join(repeated)} repeated")
        return self

    @property
    def bake_seconds(self) -> float:
        return parse_go_duration(self.bake_time)

    def gate_of(self, wave: str) -> RolloutGate:
        own = next((w.gate for w in self.waves if w.name == wave), None)
        return own if own is not None else self.gate


class RolloutPolicy(ApiModel):
    api_version: Literal["gitops-karmada.io/v1alpha1"]
    kind: Literal["RolloutPolicy"]
    metadata: ObjectMeta
    spec: RolloutPolicySpec

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace or ""

    @property
    def ref(self) -> str:
        """``namespace/name``: how commands, trailers and records name it."""
        return f"{self.namespace}/{self.name}"


def rollout_policy_schema() -> dict[str, object]:
    """The RolloutPolicy's JSON schema (draft 2020-12), as docs/schemas/rolloutpolicy.json holds it."""
    schema: dict[str, object] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://gitops-karmada.io/schemas/rolloutpolicy.json",
        "description": "gitops-karmada's RolloutPolicy: a change reaches the fleet in waves "
        "(docs/rollouts.md)",
    }
    schema.update(RolloutPolicy.model_json_schema(by_alias=True))
    return schema

"""Which policy propagates each template: Karmada's resource detector as a pure function.

Order of decision for one template (``pkg/detector/policy.go`` propagateResource):

1. a claim recorded in the previous binding is honoured while its policy exists and still selects the
   template (sticky claims); with the ``PolicyPreemption`` gate a policy with ``preemption: Always`` that
   names the template may take it over (a PropagationPolicy over a ClusterPropagationPolicy always, over
   another PropagationPolicy only with a strictly higher explicit priority; a ClusterPropagationPolicy only
   over another ClusterPropagationPolicy with a strictly higher priority);
2. otherwise the best PropagationPolicy of the template's namespace, and only if there is none the best
   ClusterPropagationPolicy: higher explicit ``.spec.priority``, then higher implicit priority (name >
   label selector > kind only), then the lexicographically smaller name;
3. no policy: a template that had a binding keeps it, unclaimed, with its placement (Karmada keeps the
   ResourceBinding when its policy is deleted); a ``v1`` Namespace is propagated to every cluster by the
   namespace-sync controller unless labelled ``namespace.karmada.io/skip-auto-propagation: "true"``.

Deliberate difference: when a claimed policy stops selecting a template because the *template's* labels
changed, Karmada leaves the stale claim in place; here the claim is released and the template re-matched,
which is what Karmada does when the *policy* changes and what a user expects in both cases.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from gitops_karmada.core.defaults import permanent_id
from gitops_karmada.core.selectors import ImplicitPriority, resource_match_selectors_priority
from gitops_karmada.model import wellknown
from gitops_karmada.model.policies import (
    AnyPropagationPolicy,
    ClusterPropagationPolicy,
    PreemptionBehavior,
    PropagationPolicy,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from gitops_karmada.core.run_memo import RunMemo
    from gitops_karmada.model.bindings import ResourceBinding
    from gitops_karmada.model.manifest import Manifest


_P = TypeVar("_P")


class ClaimState(enum.StrEnum):
    FRESH = "fresh"
    """Matched now (no valid previous claim)."""
    STICKY = "sticky"
    """Kept the policy recorded in the previous binding."""
    PREEMPTED = "preempted"
    """Taken over from the previous policy by a policy with ``preemption: Always``."""
    ORPHANED = "orphaned"
    """No policy selects it; the previous binding and its placement are kept, unclaimed."""
    NAMESPACE_SYNC = "namespace-sync"
    """A Namespace propagated to every cluster by Karmada's namespace-sync controller."""
    WAITING = "waiting"
    """Its policy waits for ``dependentOverrides`` that do not exist; nothing changes."""
    ATTACHED = "attached"
    """No policy of its own: it follows the workloads that depend on it (propagateDeps)."""
    UNMATCHED = "unmatched"
    """No policy selects it and it was never propagated."""
    IGNORED = "ignored"
    """Claimed by another controller (``resourcetemplate.karmada.io/claimed-by``)."""


@dataclass(frozen=True, slots=True)
class PolicyRef:
    kind: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"


def ref_of(policy: AnyPropagationPolicy) -> PolicyRef:
    return PolicyRef(policy.kind, policy.namespace, policy.name)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A policy that selects the template, with the two priorities that rank it."""

    policy: PolicyRef
    explicit_priority: int
    implicit_priority: ImplicitPriority


@dataclass(frozen=True, slots=True)
class PolicyMatch:
    state: ClaimState
    policy: AnyPropagationPolicy | None = None
    reason: str = ""
    candidates: tuple[Candidate, ...] = ()
    """Every policy of the deciding kind that selects the template, best first."""
    released_claim: str = ""
    """A previous claim that was dropped, and why."""

    @property
    def permanent_id(self) -> str:
        return permanent_id(self.policy) if self.policy is not None else ""


def explicit_priority(policy: AnyPropagationPolicy) -> int:
    return policy.spec.priority if policy.spec.priority is not None else 0


def rank_candidates(candidates: Iterable[Candidate]) -> tuple[Candidate, ...]:
    """Best first: higher explicit priority, then higher implicit priority, then the smaller name (bytes)."""
    return tuple(
        sorted(candidates, key=lambda c: (-c.explicit_priority, -c.implicit_priority, c.policy.name.encode()))
    )


@dataclass(frozen=True, slots=True)
class PolicyIndex:
    """Policies indexed by the (apiVersion, kind) their selectors name — and by name, for selectors that name
    one object — built once per run; each template's candidates are computed once."""

    propagation: Mapping[tuple[str, str, str], tuple[PropagationPolicy, ...]]
    """By (namespace, apiVersion, kind): policies with a selector that names no single object."""
    cluster_propagation: Mapping[tuple[str, str], tuple[ClusterPropagationPolicy, ...]]
    """By (apiVersion, kind): likewise."""
    by_ref: Mapping[PolicyRef, AnyPropagationPolicy] = field(default_factory=dict)
    propagation_by_name: Mapping[tuple[str, str, str, str], tuple[PropagationPolicy, ...]] = field(
        default_factory=dict
    )
    """By (namespace, apiVersion, kind, name): policies with a selector naming that object."""
    cluster_propagation_by_name: Mapping[tuple[str, str, str], tuple[ClusterPropagationPolicy, ...]] = field(
        default_factory=dict
    )
    _candidates: dict[
        tuple[str, str, str, str], tuple[Manifest, tuple[tuple[Candidate, ...], tuple[Candidate, ...]]]
    ] = field(default_factory=dict, compare=False, repr=False)
    """By template identity: the template they were computed for (an index kept between runs may see
    another version of it) and its candidates."""
    memo: RunMemo | None = field(default=None, compare=False, repr=False)
    """A long-lived process's memo: candidates are recalled from an earlier index by the policies they
    were ranked from (``read_for``), so a change of one policy does not rank every template again."""

    @classmethod
    def build(
        cls,
        propagation_policies: Iterable[PropagationPolicy],
        cluster_propagation_policies: Iterable[ClusterPropagationPolicy],
        memo: RunMemo | None = None,
    ) -> PolicyIndex:
        pp: dict[tuple[str, str, str], list[PropagationPolicy]] = {}
        pp_named: dict[tuple[str, str, str, str], list[PropagationPolicy]] = {}
        cpp: dict[tuple[str, str], list[ClusterPropagationPolicy]] = {}
        cpp_named: dict[tuple[str, str, str], list[ClusterPropagationPolicy]] = {}
        by_ref: dict[PolicyRef, AnyPropagationPolicy] = {}
        for policy in propagation_policies:
            by_ref[ref_of(policy)] = policy
            for key in selector_keys(policy):
                if key[2]:
                    _add(pp_named, (policy.namespace, key[0], key[1], key[2]), policy)
                else:
                    _add(pp, (policy.namespace, key[0], key[1]), policy)
        for cluster_policy in cluster_propagation_policies:
            by_ref[ref_of(cluster_policy)] = cluster_policy
            for key in selector_keys(cluster_policy):
                if key[2]:
                    _add(cpp_named, key, cluster_policy)
                else:
                    _add(cpp, (key[0], key[1]), cluster_policy)
        return cls(
            {k: tuple(v) for k, v in pp.items()},
            {k: tuple(v) for k, v in cpp.items()},
            by_ref,
            {k: tuple(v) for k, v in pp_named.items()},
            {k: tuple(v) for k, v in cpp_named.items()},
            memo=memo,
        )

    def read_for(self, template: Manifest, claimed: PolicyRef | None) -> tuple[object, ...]:
        """Everything ``match_policy`` reads of the index for ``template`` claimed by ``claimed``: the
        policies indexed under its kind and name, then the claimed one (``None`` between the groups and for
        a claimed policy that does not exist). Equal tuples of the very same objects give the same match,
        whatever else the index holds (a warm run keeps matches across a change of another policy)."""
        key = template.key
        named = (key.api_version, key.kind, key.name)
        found: list[object] = [template]
        if key.namespace:
            found += self.propagation.get((key.namespace, key.api_version, key.kind), ())
            found.append(None)
            found += self.propagation_by_name.get((key.namespace, *named), ())
        found.append(None)
        found += self.cluster_propagation.get((key.api_version, key.kind), ())
        found.append(None)
        found += self.cluster_propagation_by_name.get(named, ())
        found.append(None)
        found.append(self.by_ref.get(claimed) if claimed is not None else None)
        return tuple(found)

    def candidates_for(self, template: Manifest) -> tuple[tuple[Candidate, ...], tuple[Candidate, ...]]:
        """(PropagationPolicy candidates, ClusterPropagationPolicy candidates), each best first."""
        key = template.key
        known = self._candidates.get(key.identity)
        if known is not None and known[0] is template:
            return known[1]
        if self.memo is None:
            found = self._ranked_candidates(template)
        else:
            found = self.memo.recall(
                "candidates", self.read_for(template, None), None, lambda: self._ranked_candidates(template)
            )
        self._candidates[key.identity] = (template, found)
        return found

    def _ranked_candidates(self, template: Manifest) -> tuple[tuple[Candidate, ...], tuple[Candidate, ...]]:
        key = template.key
        pps: tuple[PropagationPolicy, ...] = ()
        if key.namespace:
            pps = _union(
                self.propagation.get((key.namespace, key.api_version, key.kind), ()),
                self.propagation_by_name.get((key.namespace, key.api_version, key.kind, key.name), ()),
            )
        cpps = _union(
            self.cluster_propagation.get((key.api_version, key.kind), ()),
            self.cluster_propagation_by_name.get((key.api_version, key.kind, key.name), ()),
        )
        return _ranked(template, pps), _ranked(template, cpps)


def selector_keys(policy: AnyPropagationPolicy) -> list[tuple[str, str, str]]:
    """(apiVersion, kind, name or "") of each selector: a named selector matches that object only."""
    return sorted({(s.api_version, s.kind, s.name or "") for s in policy.spec.resource_selectors})


def _add(index: dict[Any, list[Any]], key: Any, policy: Any) -> None:
    listed = index.setdefault(key, [])
    if not listed or listed[-1] is not policy:
        listed.append(policy)


def _union(first: tuple[_P, ...], second: tuple[_P, ...]) -> tuple[_P, ...]:
    if not second:
        return first
    if not first:
        return second
    seen = {id(p) for p in first}
    return (*first, *(p for p in second if id(p) not in seen))


def _ranked(template: Manifest, policies: Sequence[AnyPropagationPolicy]) -> tuple[Candidate, ...]:
    found = []
    for policy in policies:
        implicit = resource_match_selectors_priority(template.body, policy.spec.resource_selectors)
        if implicit is not ImplicitPriority.MISMATCH:
            found.append(Candidate(ref_of(policy), explicit_priority(policy), implicit))
    return rank_candidates(found)


def highest_priority_policy(
    template: Manifest, policies: Sequence[AnyPropagationPolicy]
) -> AnyPropagationPolicy | None:
    """``getHighestPriorityPropagationPolicy``: the best of ``policies`` (one kind) selecting ``template``."""
    ranked = _ranked(template, policies)
    if not ranked:
        return None
    return next(p for p in policies if ref_of(p) == ranked[0].policy)


def _describe_win(winner: Candidate, runner_up: Candidate | None, kind_note: str) -> str:
    if runner_up is None:
        return f"the only {kind_note} selecting it"
    if winner.explicit_priority != runner_up.explicit_priority:
        return (
            f"higher explicit priority ({winner.explicit_priority} > "
            f"{runner_up.explicit_priority} of {runner_up.policy.name})"
        )
    if winner.implicit_priority != runner_up.implicit_priority:
        return (
            f"more precise selector ({winner.implicit_priority.name.lower()} beats "
            f"{runner_up.implicit_priority.name.lower()} of {runner_up.policy.name})"
        )
    return f"same priorities as {runner_up.policy.name}; the smaller name wins"


@dataclass(frozen=True, slots=True)
class PriorClaim:
    """What matching needs of a previous binding when only the state index was read: that it exists, and
    the claim it records (policy and permanent id), if any."""

    claim: tuple[PolicyRef, str] | None = None


def previous_claim(binding: ResourceBinding | PriorClaim | None) -> tuple[PolicyRef, str] | None:
    """The policy claim recorded on a previous binding: (policy, permanent id)."""
    if binding is None:
        return None
    if isinstance(binding, PriorClaim):
        return binding.claim
    labels, annotations = binding.metadata.labels, binding.metadata.annotations
    pp_ns = annotations.get(wellknown.PP_NAMESPACE_ANNOTATION, "")
    pp_name = annotations.get(wellknown.PP_NAME_ANNOTATION, "")
    pp_id = labels.get(wellknown.PP_PERMANENT_ID_LABEL, "")
    if pp_ns and pp_name and pp_id:
        return PolicyRef("PropagationPolicy", pp_ns, pp_name), pp_id
    cpp_name = annotations.get(wellknown.CPP_NAME_ANNOTATION, "")
    cpp_id = labels.get(wellknown.CPP_PERMANENT_ID_LABEL, "")
    if cpp_name and cpp_id:
        return PolicyRef("ClusterPropagationPolicy", "", cpp_name), cpp_id
    return None


def match_policy(
    template: Manifest,
    index: PolicyIndex,
    previous: ResourceBinding | PriorClaim | None,
    *,
    preemption_enabled: bool,
    existing_override_policies: frozenset[tuple[str, str]] = frozenset(),
) -> PolicyMatch:
    """Decide the policy for one template (see the module docstring for the rules)."""
    if template.labels.get(wellknown.CLAIMED_BY_LABEL):
        return PolicyMatch(
            ClaimState.IGNORED, reason=f"claimed by {template.labels[wellknown.CLAIMED_BY_LABEL]!r}"
        )
    pp_candidates, cpp_candidates = index.candidates_for(template)
    released = ""
    claim = previous_claim(previous)
    if claim is not None:
        ref, claimed_id = claim
        policy = index.by_ref.get(ref)
        if policy is None or permanent_id(policy) != claimed_id:
            released = f"{ref} no longer exists; its claim was released"
        elif not any(c.policy == ref for c in (*pp_candidates, *cpp_candidates)):
            released = f"{ref} no longer selects it; its claim was released"
        else:
            preemptor = (
                _preemptor(template, policy, pp_candidates, cpp_candidates, index)
                if preemption_enabled
                else None
            )
            if preemptor is not None:
                return _checked(
                    PolicyMatch(
                        ClaimState.PREEMPTED,
                        preemptor,
                        f"preempted {ref} (preemption: Always, names the template"
                        + (
                            ", PropagationPolicy over ClusterPropagationPolicy)"
                            if preemptor.kind != policy.kind
                            else f", priority {explicit_priority(preemptor)} > {explicit_priority(policy)})"
                        ),
                        pp_candidates or cpp_candidates,
                    ),
                    previous,
                    existing_override_policies,
                )
            candidates = pp_candidates if ref.kind == "PropagationPolicy" else cpp_candidates
            return _checked(
                PolicyMatch(
                    ClaimState.STICKY, policy, "claimed by this policy in an earlier run", candidates
                ),
                previous,
                existing_override_policies,
            )
    for candidates, note in (
        (pp_candidates, "PropagationPolicy"),
        (cpp_candidates, "ClusterPropagationPolicy"),
    ):
        if candidates:
            winner = candidates[0]
            reason = _describe_win(winner, candidates[1] if len(candidates) > 1 else None, note)
            if note == "ClusterPropagationPolicy" and template.key.namespace:
                reason += "; no PropagationPolicy in its namespace selects it"
            elif note == "PropagationPolicy" and cpp_candidates:
                reason += "; a namespaced PropagationPolicy always beats ClusterPropagationPolicies"
            return _checked(
                PolicyMatch(ClaimState.FRESH, index.by_ref[winner.policy], reason, candidates, released),
                previous,
                existing_override_policies,
            )
    if (
        template.key.api_version == "v1"
        and template.key.kind == "Namespace"
        and template.labels.get(wellknown.NAMESPACE_SKIP_AUTO_PROPAGATION_LABEL) != "true"
    ):
        # the namespace-sync controller handles every unclaimed Namespace, whatever its history
        return PolicyMatch(
            ClaimState.NAMESPACE_SYNC,
            reason="namespaces are propagated to every cluster",
            released_claim=released,
        )
    if previous is not None:
        return PolicyMatch(
            ClaimState.ORPHANED,
            reason="no policy selects it; the previous placement is kept",
            released_claim=released,
        )
    return PolicyMatch(ClaimState.UNMATCHED, reason="no policy selects it", released_claim=released)


def _checked(
    match: PolicyMatch,
    previous: ResourceBinding | PriorClaim | None,
    existing_override_policies: frozenset[tuple[str, str]],
) -> PolicyMatch:
    """A policy whose dependentOverrides do not all exist yet is not applied (Karmada waits for them)."""
    policy = match.policy
    if policy is None or not policy.spec.dependent_overrides:
        return match
    namespace = policy.namespace
    missing = [
        name
        for name in policy.spec.dependent_overrides
        if (namespace, name) not in existing_override_policies
        and ("", name) not in existing_override_policies
    ]
    if not missing:
        return match
    return PolicyMatch(
        ClaimState.WAITING,
        policy,
        f"{ref_of(policy)} waits for its dependentOverrides {', '.join(missing)}"
        + ("; the previous placement is kept" if previous is not None else "; not propagated yet"),
        match.candidates,
    )


def _preemptor(
    template: Manifest,
    current: AnyPropagationPolicy,
    pp_candidates: Sequence[Candidate],
    cpp_candidates: Sequence[Candidate],
    index: PolicyIndex,
) -> AnyPropagationPolicy | None:
    """The best policy entitled to preempt ``current`` for this template, if any."""

    def eligible(candidate: Candidate) -> AnyPropagationPolicy | None:
        policy = index.by_ref[candidate.policy]
        if policy is current or policy.spec.preemption is not PreemptionBehavior.ALWAYS:
            return None
        # preemption only resolves selectors that address one object by name
        if candidate.implicit_priority is not ImplicitPriority.MATCH_NAME:
            return None
        if isinstance(policy, PropagationPolicy):
            if isinstance(current, ClusterPropagationPolicy):
                return policy
            return policy if explicit_priority(policy) > explicit_priority(current) else None
        if isinstance(current, ClusterPropagationPolicy) and explicit_priority(policy) > explicit_priority(
            current
        ):
            return policy
        return None

    for candidates in (pp_candidates, cpp_candidates):
        for candidate in candidates:
            policy = eligible(candidate)
            if policy is not None:
                return policy
    return None

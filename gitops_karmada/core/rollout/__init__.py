"""Rollouts in waves (gitops-karmada's RolloutPolicy): which clusters a template's change reaches when.

``plan`` orders a template's clusters into steps, ``gates`` judges what the clusters reported of the step
in progress, ``advance`` moves a template's rollout state one run forward, and ``state`` is that state as
the binding record carries it. Pure: the run applies the decision to the rendered files
(``reconcile/stage.py``).
"""

"""gitops-karmada: Karmada's multi-cluster placement semantics as a GitOps reconciler."""

__version__ = "0.1.0"

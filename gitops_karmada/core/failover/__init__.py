"""Karmada failover semantics: taints, application failover, graceful eviction, preserved state."""

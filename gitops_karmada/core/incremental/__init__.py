"""Incremental state: fingerprints, the state index, the change scope, what a long-lived process recalls."""

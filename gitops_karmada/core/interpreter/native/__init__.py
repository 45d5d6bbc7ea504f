"""Karmada's native (Go) interpreters in Python (``pkg/resourceinterpreter/default/native``)."""

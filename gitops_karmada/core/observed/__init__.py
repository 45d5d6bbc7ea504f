"""Observed status: what member clusters report, read from their APIs, folded into inventory and records."""

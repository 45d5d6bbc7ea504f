"""The long-lived reconciler (``watch``): worker loop, ref watcher, collector, HTTP surface and metrics."""

"""The long-lived reconciler (``watch``): settings, assembly, worker loop, ref watcher, collect loop, HTTP
surface, status page and metrics."""

"""Views: what ``get``, ``describe`` and the reports show of records, policies and clusters, as plain data."""

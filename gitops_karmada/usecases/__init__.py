"""Use cases: what the CLI, the Action and the daemon do, with plain arguments in and values out."""

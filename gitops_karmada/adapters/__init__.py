"""Adapters: the modules that touch the world (git, directories, kubectl, GitHub, processes)."""

"""Inputs: YAML decoded as Kubernetes reads it, each document given its role, validated and defaulted."""

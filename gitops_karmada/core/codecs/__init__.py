"""Codecs: YAML read and written as Kubernetes does, Go's JSON, go-yaml v2 and sigs.k8s.io/yaml byte for byte,
Kubernetes' JSONPath, numbers and times, and the stable digests of the incremental engine."""

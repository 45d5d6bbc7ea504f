"""Container image references: distribution's grammar (``reference.Parse``) and Karmada's ``imageparser``.

Parsing follows github.com/distribution/reference v0.6 exactly: lower-case path components with ``.``,
``_``, ``__`` or dash-run separators, an optional ``host[:port]/`` (domain names, IPv4, bracketed IPv6),
a tag ``[\\w][\\w.-]{0,127}`` and a digest checked like go-digest (sha256/384/512 with lower-case hex of
the right length). There is no docker.io normalisation. Karmada then splits the name on the first ``/``
(a hostname contains ``.`` or ``:`` or is ``localhost``) and keeps the tag when a reference has both a
tag and a digest. ``ImageComponents`` is immutable; its ``with_*`` methods are Karmada's setters. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

__all__ = ["ImageComponents", "InvalidReferenceError", "parse_image", "split_hostname"]

_ALPHANUMERIC = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = _ALPHANUMERIC + r"(?:" + _SEPARATOR + _ALPHANUMERIC + r")*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN_NAME = _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*"
_IPV6_ADDRESS = r"\[(?:[a-fA-F0-9:]+)\]"
_DOMAIN_AND_PORT = r"(?:" + _DOMAIN_NAME + "|" + _IPV6_ADDRESS + r")(?::[0-9]+)?"
# Go's \w is ASCII-only
_TAG = r"[0-9A-Za-z_][0-9A-Za-z_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}"
_REMOTE_NAME = _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"
_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _REMOTE_NAME

_REFERENCE = re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?")
_ANCHORED_NAME = re.compile(r"(?:(" + _DOMAIN_AND_PORT + r")/)?(" + _REMOTE_NAME + r")")
_ANCHORED_TAG = re.compile(_TAG)
_ANCHORED_DIGEST = re.compile(_DIGEST)
# go-digest: which algorithms are available and what their encoded part must look like
_DIGEST_ALGORITHMS = {"sha256": 64, "sha384": 96, "sha512": 128}
_GO_DIGEST_ANCHORED = re.compile(r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+")
_NAME_TOTAL_LENGTH_MAX = 255


class InvalidReferenceError(ValueError):
    """The image is not a valid reference; the message is distribution's error text."""


def _validate_digest(digest: str) -> None:
    """go-digest ``Digest.Validate``."""
    index = digest.find(":")
    if index <= 0 or index + 1 == len(digest):
        raise InvalidReferenceError("invalid checksum digest format")
    algorithm, encoded = digest[:index], digest[index + 1 :]
    length = _DIGEST_ALGORITHMS.get(algorithm)
    if length is None:
        if _GO_DIGEST_ANCHORED.fullmatch(digest) is None:
            raise InvalidReferenceError("invalid checksum digest format")
        raise InvalidReferenceError("unsupported digest algorithm")
    if len(encoded) != length:
        raise InvalidReferenceError("invalid checksum digest length")
    if re.fullmatch(r"[a-f0-9]+", encoded) is None:
        raise InvalidReferenceError("invalid checksum digest format")


def split_hostname(name: str) -> tuple[str, str]:
    """Karmada's ``SplitHostname``: the first part is a hostname iff it has ``.``/``:`` or is localhost."""
    index = name.find("/")
    if index == -1:
        return "", name
    first = name[:index]
    if "." not in first and ":" not in first and first != "localhost":
        return "", name
    return first, name[index + 1 :]


@dataclass(frozen=True, slots=True, kw_only=True)
class ImageComponents:
    """``[hostname/]repository[:tag|@digest]`` (Karmada ``imageparser.Components``)."""

    hostname: str = ""
    repository: str = ""
    tag: str = ""
    digest: str = ""

    @property
    def full_repository(self) -> str:
        return f"{self.hostname}/{self.repository}" if self.hostname else self.repository

    @property
    def tag_or_digest(self) -> str:
        return self.tag or self.digest

    def with_hostname(self, hostname: str) -> ImageComponents:
        return replace(self, hostname=hostname)

    def without_hostname(self) -> ImageComponents:
        return replace(self, hostname="")

    def with_repository(self, repository: str) -> ImageComponents:
        return replace(self, repository=repository)

    def without_repository(self) -> ImageComponents:
        return replace(self, repository="")

    def with_tag_or_digest(self, value: str) -> ImageComponents:
        """A valid tag replaces tag and digest, else a valid digest does; anything else changes nothing."""
        if not value:
            return self
        if _ANCHORED_TAG.fullmatch(value):
            return replace(self, tag=value, digest="")
        if _ANCHORED_DIGEST.fullmatch(value):
            return replace(self, tag="", digest=value)
        return self

    def without_tag_or_digest(self) -> ImageComponents:
        return replace(self, tag="") if self.tag else replace(self, digest="")

    def __str__(self) -> str:
        if self.tag:
            return f"{self.full_repository}:{self.tag}"
        if self.digest:
            return f"{self.full_repository}@{self.digest}"
        return self.full_repository


def parse_image(image: str) -> ImageComponents:
    """``imageparser.Parse``: ``reference.Parse`` then Karmada's split; raises InvalidReferenceError."""
    match = _REFERENCE.fullmatch(image)
    if match is None:
        if image == "":
            raise InvalidReferenceError("repository name must have at least one component")
        if _REFERENCE.fullmatch(image.lower()) is not None:
            raise InvalidReferenceError("repository name must be lowercase")
        raise InvalidReferenceError("invalid reference format")
    name, tag, digest = match.group(1), match.group(2) or "", match.group(3) or ""
    name_match = _ANCHORED_NAME.fullmatch(name)
    path = name_match.group(2) if name_match is not None else name
    if len(path) > _NAME_TOTAL_LENGTH_MAX:
        raise InvalidReferenceError(
            f"repository name must not be more than {_NAME_TOTAL_LENGTH_MAX} characters"
        )
    if digest:
        _validate_digest(digest)
    hostname, repository = split_hostname(name)
    return ImageComponents(hostname=hostname, repository=repository, tag=tag, digest="" if tag else digest)

"""The Karmada versions whose behaviour a repository can follow (``karmadaVersion`` in gitops-karmada.yaml).

A minor version stands for its newest patch release in the specification's snapshot (v1.16.8, v1.17.5,
v1.18.2; v1.19: the v1.19 line as of the snapshot, post-rc.0 changes included), so a fix back-ported to a
patch release of an older minor version holds for that minor version too. Where behaviour differs between
versions, the code asks the version (``at_least``), never a version string.
"""

from __future__ import annotations

import enum
import re

_VERSION = re.compile(r"^v?1\.(\d+)(?:\.\d+)?$")


class KarmadaVersion(enum.StrEnum):
    V1_16 = "v1.16"
    V1_17 = "v1.17"
    V1_18 = "v1.18"
    V1_19 = "v1.19"

    @property
    def minor(self) -> int:
        return int(self.value.rpartition(".")[2])

    def at_least(self, other: KarmadaVersion) -> bool:
        return self.minor >= other.minor

    @classmethod
    def parse(cls, text: str) -> KarmadaVersion:
        """``v1.18``, ``1.18`` or a patch release (``v1.18.2``) → its minor version; ValueError otherwise."""
        found = _VERSION.match(text.strip())
        if found is not None:
            for version in cls:
                if version.minor == int(found.group(1)):
                    return version
        supported = ", ".join(v.value for v in cls)
        raise ValueError(f"unsupported Karmada version {text!r}: this tool follows {supported}")

    @classmethod
    def newest(cls) -> KarmadaVersion:
        return max(cls, key=lambda v: v.minor)

    def __lt__(self, other: object) -> bool:
        return self.minor < _minor(other)

    def __le__(self, other: object) -> bool:
        return self.minor <= _minor(other)

    def __gt__(self, other: object) -> bool:
        return self.minor > _minor(other)

    def __ge__(self, other: object) -> bool:
        return self.minor >= _minor(other)


def _minor(other: object) -> int:
    if not isinstance(other, KarmadaVersion):
        raise TypeError(f"cannot compare a Karmada version with {type(other).__name__}")
    return other.minor


NEWEST_VERSION = KarmadaVersion.newest()
"""The default: the newest Karmada version followed."""

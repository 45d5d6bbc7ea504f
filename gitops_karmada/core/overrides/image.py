"""imageOverrider: rewrite the registry, repository or tag of container images (``imageoverride.go``).

Without a predicate every ``containers[*].image`` of a Pod or pod-template workload is rewritten (other
kinds: nothing); with a predicate only the string at its path. Each image becomes one ``replace`` op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitops_karmada.core.overrides.errors import OverriderError
from gitops_karmada.core.overrides.imageref import ImageComponents, InvalidReferenceError, parse_image
from gitops_karmada.core.overrides.patch import PatchOperation, PatchOperator
from gitops_karmada.core.overrides.pointer import join_pointer
from gitops_karmada.core.overrides.workloads import containers_fields, nested_slice
from gitops_karmada.model.overrides import ImageComponent, ImageOverrider, OverriderOperator

__all__ = ["image_overrider_patches", "override_image"]

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _apply_component(image: ImageComponents, overrider: ImageOverrider) -> ImageComponents:
    operator, value = overrider.operator, overrider.value
    match overrider.component:
        case ImageComponent.REGISTRY:
            if operator is OverriderOperator.ADD:
                return image.with_hostname(image.hostname + value)
            if operator is OverriderOperator.REPLACE:
                return image.with_hostname(value)
            return image.without_hostname()
        case ImageComponent.REPOSITORY:
            if operator is OverriderOperator.ADD:
                return image.with_repository(image.repository + value)
            if operator is OverriderOperator.REPLACE:
                return image.with_repository(value)
            return image.without_repository()
        case ImageComponent.TAG:
            # an invalid resulting tag/digest changes nothing (Karmada's SetTagOrDigest), not an error
            if operator is OverriderOperator.ADD:
                return image.with_tag_or_digest(image.tag_or_digest + value)
            if operator is OverriderOperator.REPLACE:
                return image.with_tag_or_digest(value)
            return image.without_tag_or_digest()


def override_image(image: str, overrider: ImageOverrider, path: str = "") -> str:
    """The image after ``overrider``; an invalid reference is an OverriderError at ``path``."""
    try:
        components = parse_image(image)
    except InvalidReferenceError as err:
        raise OverriderError(f"failed to parse image value({image}), error: {err}", path) from err
    return str(_apply_component(components, overrider))


def _parse_int32(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 32)``."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if _INT32_MIN <= value <= _INT32_MAX else None


def _predicate_image(obj: Mapping[str, Any], path: str) -> str:
    """Karmada's ``obtainImageValue``: walk maps and list indexes (no ``~1`` unescaping) to a string."""
    segments = path.strip("/").split("/")
    current: Mapping[str, Any] = obj
    index = 0
    while index < len(segments) - 1:
        value = current.get(segments[index])
        if isinstance(value, Mapping):
            current = value
        elif isinstance(value, list):
            item_index = _parse_int32(segments[index + 1])
            if item_index is None:
                raise OverriderError(f"path({segments[index + 1]}) of rawObj's is not number", path)
            # Go panics on the next two; an error says the same more kindly
            if not 0 <= item_index < len(value):
                raise OverriderError(f"index {item_index} out of range of {len(value)} items", path)
            item = value[item_index]
            if not isinstance(item, Mapping):
                raise OverriderError(f"item {item_index} of path({segments[index]}) is not a map", path)
            current = item
            index += 1
        else:
            raise OverriderError(f"path({segments[index]}) of rawObj's type is not map or slice", path)
        index += 1
    image = current.get(segments[-1])
    if not isinstance(image, str):
        raise OverriderError(f"failed to convert path({segments[-1]}) to string", path)
    return image


def image_overrider_patches(obj: Mapping[str, Any], overrider: ImageOverrider) -> tuple[PatchOperation, ...]:
    """Karmada's ``buildPatches``: one ``replace`` per image the overrider addresses."""
    if overrider.predicate is not None:
        path = overrider.predicate.path
        image = _predicate_image(obj, path)
        return (PatchOperation(PatchOperator.REPLACE, path, override_image(image, overrider, path)),)
    kind = obj.get("kind")
    fields = containers_fields(kind) if isinstance(kind, str) else None
    if fields is None:
        return ()
    containers = nested_slice(obj, fields)
    if not containers:
        return ()
    patches = []
    for index, container in enumerate(containers):
        path = f"{join_pointer(fields)}/{index}/image"
        current = container.get("image") if isinstance(container, Mapping) else None
        if not isinstance(current, str):
            # Karmada's type assertion would panic the controller
            raise OverriderError("container has no image string", path)
        patches.append(PatchOperation(PatchOperator.REPLACE, path, override_image(current, overrider, path)))
    return tuple(patches)

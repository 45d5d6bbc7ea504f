"""Go's float64 behaviour where Lua numbers meet quantities: JSON number text and AsApproximateFloat64.

Lua numbers are float64. When a script returns one as a quantity, Karmada encodes it with Go's
``encoding/json`` (shortest digits, fixed notation between 1e-6 and 1e21) and parses that text as a
Quantity, so the *text* decides the quantity's format. ``kube.getResourceQuantity`` returns
``Quantity.AsApproximateFloat64()``, which multiplies the parsed mantissa by a power of ten in float64
arithmetic; reproducing that (rather than rounding the exact value once) keeps the last bit identical.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction

from gitops_karmada.model.quantity import Quantity, QuantityError

_DECIMAL_EXPONENTS = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_EXPONENTS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_EXPONENT_SUFFIX = re.compile(r"^[eE]([+-]?[0-9]+)$")
_GO_NUMBER = re.compile(r"^([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)$")
_MAX_INT64 = 2**63 - 1
_MAX_INT64_FACTORS = 18  # resource.maxInt64Factors
_NANO_SCALE = -9

# math.Pow10's tables: products of these, not a correctly rounded power, for exponents of 32 and more
_POW10_TAB = tuple(float(10**i) for i in range(32))
_POW10_POS_TAB32 = tuple(float(10 ** (32 * i)) for i in range(10))
_POW10_NEG_TAB32 = (1.0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320)


def go_json_number(value: float) -> str:
    """The text Go's ``encoding/json`` writes for a float64 (no ``.0``, exponent only outside 1e-6..1e21)."""
    if not math.isfinite(value):
        raise ValueError(f"json: unsupported value: {value!r}")
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value)) if value != 0 or math.copysign(1.0, value) > 0 else "-0"
    magnitude = abs(value)
    if 1e-6 <= magnitude < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    text = repr(value)  # shortest digits with Go's two-digit exponent, e.g. 1e+21, 1.5e-07
    mantissa, _, exponent = text.partition("e")
    sign, digits = exponent[0], exponent[1:].lstrip("0") or "0"
    return f"{mantissa}e{sign}{digits}"


def quantity_from_json_number(value: int | float) -> Quantity:
    """A quantity from a JSON number the way ``Quantity.UnmarshalJSON`` sees it (Go's text of the float)."""
    text = str(value) if isinstance(value, int) else go_json_number(value)
    return Quantity.parse(text)


def _pow10(exponent: int) -> float:
    """``math.Pow10``."""
    if 0 <= exponent <= 308:
        return _POW10_POS_TAB32[exponent // 32] * _POW10_TAB[exponent % 32]
    if -323 <= exponent < 0:
        return _POW10_NEG_TAB32[-exponent // 32] / _POW10_TAB[-exponent % 32]
    return 0.0 if exponent < 0 else math.inf


def approximate_float64(text: str) -> float:
    """``resource.MustParse(text).AsApproximateFloat64()``; raises QuantityError for a malformed text."""
    if text != text.strip():
        raise QuantityError(f"quantities must not have surrounding spaces, got {text!r}")
    Quantity.parse(text)  # validates with Kubernetes' grammar and error message
    if text == "0":
        return 0.0
    match = _GO_NUMBER.match(text)
    if match is None:  # pragma: no cover - Quantity.parse accepted it
        raise QuantityError(f"cannot parse {text!r}")
    sign, num, denom, suffix = match[1], match[2] or "0", match[3] or "", match[4]
    negative = sign == "-"
    if suffix in _BINARY_EXPONENTS:
        base, exponent, binary = 2, _BINARY_EXPONENTS[suffix], True
    elif suffix in _DECIMAL_EXPONENTS:
        base, exponent, binary = 10, _DECIMAL_EXPONENTS[suffix], False
    else:
        exp_match = _EXPONENT_SUFFIX.match(suffix)
        if exp_match is None:  # pragma: no cover - Quantity.parse accepted it
            raise QuantityError(f"unable to parse quantity's suffix in {text!r}")
        base, exponent, binary = 10, int(exp_match[1]), False

    fast = _fast_path(num, denom, exponent, binary)
    if fast is not None:
        unscaled, scale = fast
        result = float(unscaled) if scale == 0 else float(unscaled) * _pow10(scale)
        return -result if negative else result

    # the inf.Dec path: exact value, rounded up to nano precision (scale 9), BinarySI capped at MaxInt64
    amount = Fraction(f"{num}.{denom}" if denom else num)
    amount *= Fraction(base) ** exponent
    if amount == 0:
        return 0.0
    if binary and amount > _MAX_INT64:
        result = float(_MAX_INT64)
    else:
        result = float(math.ceil(amount * 10**9)) * _pow10(_NANO_SCALE)
    return -result if negative else result


def _fast_path(num: str, denom: str, exponent: int, binary: bool) -> tuple[int, int] | None:
    """ParseQuantity's int64Amount fast path: (unscaled value, decimal scale), or None for inf.Dec."""
    mantissa = 1
    if binary:
        if exponent < 0 or denom:
            return None
        mantissa = 1 << exponent
        precision = 15 - len(num) - int(exponent * 3 / 10) - 1
        scale = 0
    else:
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
        scale = exponent
    if precision < 0:
        return None
    scale -= len(denom)
    if scale < _NANO_SCALE:
        return None
    value = int(num + denom) * mantissa
    if value > _MAX_INT64:
        return None
    return value, scale

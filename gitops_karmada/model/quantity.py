"""Kubernetes ``resource.Quantity``: exact parsing, arithmetic and canonical formatting.

Why our own module: the only complete implementation on PyPI lives in the ``kubernetes`` client
(166 MB with its dependencies) and lightkube's parser rejects ``u``/``n`` suffixes and plain numbers.
The rules reproduced here are those of ``k8s.io/apimachinery/pkg/api/resource``:

* grammar ``<sign?><digits[.digits]><suffix>`` with decimal SI suffixes ``n u m "" k M G T P E``,
  binary suffixes ``Ki Mi Gi Ti Pi Ei`` and decimal exponents ``e3``/``E-2``; lower-case ``m`` is milli;
* values are rounded away from zero to nano precision and capped at 2^63-1, as ``ParseQuantity`` does;
* the *format* (BinarySI, DecimalSI, DecimalExponent) is taken from the suffix; some consumers depend on it
  (Karmada's general estimator counts DecimalSI values in milli-units, BinarySI in whole units);
* ``str()`` gives Kubernetes' canonical spelling (``1.024`` → ``1024m``, ``1536Mi``, ``3k``, ``12e-3``).

Arithmetic is exact (``fractions.Fraction``); equality and ordering are numeric, like ``Quantity.Cmp``.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from pydantic_core import core_schema

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler

__all__ = ["Format", "Quantity", "QuantityError", "parse_quantity"]


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


class Format(enum.StrEnum):
    BINARY_SI = "BinarySI"
    DECIMAL_SI = "DecimalSI"
    DECIMAL_EXPONENT = "DecimalExponent"


_DECIMAL_SUFFIXES: dict[str, int] = {
    "n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18,
}  # fmt: skip
_BINARY_SUFFIXES: dict[str, int] = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_EXPONENT = {0: "", **{exp: suffix for suffix, exp in _BINARY_SUFFIXES.items()}}

_QUANTITY_RE = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE]?)$"
)
_NANO = Fraction(1, 10**9)
_MAX = Fraction(2**63 - 1)


def _round_away_from_zero(value: Fraction, step: Fraction) -> Fraction:
    units = value / step
    rounded = math.ceil(units) if units >= 0 else math.floor(units)
    return rounded * step


@functools.total_ordering
class Quantity:
    """An immutable Kubernetes quantity: an exact value plus the format its suffix implied."""

    __slots__ = ("_format", "_value")

    def __init__(self, value: Fraction | int, fmt: Format = Format.DECIMAL_SI) -> None:
        exact = Fraction(value)
        if (exact / _NANO).denominator != 1:
            # Go's Quantity holds decimals only: finer values round away from zero to nano, as parsing does
            exact = _round_away_from_zero(exact, _NANO)
        self._value = exact
        self._format = fmt

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def parse(cls, raw: object) -> Quantity:
        """Parse a quantity from a string, an int or a float (a JSON number), as Kubernetes does."""
        if isinstance(raw, Quantity):
            return raw
        if isinstance(raw, bool) or raw is None:
            raise QuantityError(f"quantity must be a string or a number, not {type(raw).__name__}")
        if isinstance(raw, int):
            return _parse_string(str(raw))
        if isinstance(raw, float):
            if not math.isfinite(raw):
                raise QuantityError(f"quantity {raw!r} is not finite")
            return _parse_string(repr(raw))
        if isinstance(raw, str):
            return _parse_string(raw.strip())
        raise QuantityError(f"quantity must be a string or a number, not {type(raw).__name__}")

    # -- accessors ----------------------------------------------------------------------------
    @property
    def value(self) -> Fraction:
        """The exact numeric value."""
        return self._value

    @property
    def format(self) -> Format:
        return self._format

    def is_zero(self) -> bool:
        return self._value == 0

    def ceil_value(self) -> int:
        """``Quantity.Value()``: whole units, rounded away from zero."""
        return int(_round_away_from_zero(self._value, Fraction(1)))

    def milli_value(self) -> int:
        """``Quantity.MilliValue()``: milli-units, rounded away from zero."""
        return int(_round_away_from_zero(self._value * 1000, Fraction(1)))

    def as_float(self) -> float:
        """``AsApproximateFloat64`` (what Karmada's ``kube.getResourceQuantity`` returns to Lua)."""
        return float(self._value)

    # -- arithmetic (Go's Quantity.Add: a zero receiver takes the other operand's format) ---------
    def __add__(self, other: Quantity) -> Quantity:
        fmt = other._format if self._value == 0 else self._format
        return Quantity(self._value + other._value, fmt)

    def __sub__(self, other: Quantity) -> Quantity:
        fmt = other._format if self._value == 0 else self._format
        return Quantity(self._value - other._value, fmt)

    def __neg__(self) -> Quantity:
        return Quantity(-self._value, self._format)

    def times(self, factor: int) -> Quantity:
        return Quantity(self._value * factor, self._format)

    # -- comparison: numeric, like Quantity.Cmp ---------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self._value == other._value
        return NotImplemented

    def __lt__(self, other: Quantity) -> bool:
        return self._value < other._value

    def __hash__(self) -> int:
        return hash(self._value)

    # -- formatting ---------------------------------------------------------------------------
    def __str__(self) -> str:
        return _canonical(self._value, self._format)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"

    # -- pydantic integration: accept str/int/float, serialise to the canonical string ------------
    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        def validate(raw: object) -> Quantity:
            try:
                return cls.parse(raw)
            except QuantityError as err:
                raise ValueError(str(err)) from None

        return core_schema.no_info_plain_validator_function(
            validate, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )


@functools.lru_cache(maxsize=8192)
def _parse_string(text: str) -> Quantity:
    match = _QUANTITY_RE.match(text)
    if match is None or text in ("", "+", "-"):
        raise QuantityError(f"quantities must match the regular expression "
                            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got {text!r}")  # fmt: skip
    number = (
        Fraction(match["number"]) if not match["number"].endswith(".") else Fraction(match["number"][:-1])
    )
    suffix = match["suffix"]
    if suffix in _BINARY_SUFFIXES:
        fmt = Format.BINARY_SI
        value = number * (2 ** _BINARY_SUFFIXES[suffix])
    elif suffix in _DECIMAL_SUFFIXES:
        fmt = Format.DECIMAL_SI
        value = number * Fraction(10) ** _DECIMAL_SUFFIXES[suffix]
    else:
        fmt = Format.DECIMAL_EXPONENT
        value = number * Fraction(10) ** int(suffix[1:])
    if value != 0:
        value = _round_away_from_zero(value, _NANO)
    if fmt is Format.BINARY_SI:
        value = min(value, _MAX)  # Go caps only BinarySI (a TODO there: quota sums may exceed int64)
    if fmt is Format.BINARY_SI and 0 < value < 1:
        fmt = Format.DECIMAL_SI
    if match["sign"] == "-":
        value = -value
    return Quantity(value, fmt)


def parse_quantity(raw: object) -> Quantity:
    """Module-level alias of :meth:`Quantity.parse`."""
    return Quantity.parse(raw)


@functools.lru_cache(maxsize=8192)  # a fleet writes the same few requests (100m, 128Mi) thousands of times
def _canonical(value: Fraction, fmt: Format) -> str:
    if value == 0:
        return "0"
    if fmt is Format.BINARY_SI and (abs(value) < 1024 or value.denominator != 1):
        fmt = Format.DECIMAL_SI  # Kubernetes avoids rounding (and confusion) this way
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if fmt is Format.BINARY_SI:
        mantissa, exponent = int(magnitude), 0
        while mantissa % 1024 == 0 and exponent < 60:
            mantissa //= 1024
            exponent += 10
        return f"{sign}{mantissa}{_BINARY_BY_EXPONENT[exponent]}"
    # decimal: move every factor of ten into the exponent, then lower it to a multiple of three
    exponent = 0
    while magnitude.denominator != 1:
        magnitude *= 10
        exponent -= 1
    mantissa = int(magnitude)
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3 != 0:
        mantissa *= 10
        exponent -= 1
    if fmt is Format.DECIMAL_EXPONENT:
        return f"{sign}{mantissa}" + (f"e{exponent}" if exponent else "")
    suffix = _DECIMAL_BY_EXPONENT.get(exponent)
    if suffix is None:  # outside the SI table (cannot happen within nano precision and the 2^63 cap)
        return f"{sign}{mantissa}e{exponent}"
    return f"{sign}{mantissa}{suffix}"

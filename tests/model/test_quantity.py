"""Kubernetes resource.Quantity: parsing, canonical form, format, rounding (cases from apimachinery's tests)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitops_karmada.model.quantity import Format, Quantity, QuantityError

CANONICAL = [
    ("0", "0", Format.DECIMAL_SI),
    ("1", "1", Format.DECIMAL_SI),
    ("1.024", "1024m", Format.DECIMAL_SI),
    ("0.5", "500m", Format.DECIMAL_SI),
    (".5", "500m", Format.DECIMAL_SI),
    ("1.", "1", Format.DECIMAL_SI),
    ("3000", "3k", Format.DECIMAL_SI),
    ("1500", "1500", Format.DECIMAL_SI),
    ("100m", "100m", Format.DECIMAL_SI),
    ("250u", "250u", Format.DECIMAL_SI),
    ("10n", "10n", Format.DECIMAL_SI),
    ("1G", "1G", Format.DECIMAL_SI),
    ("1E", "1E", Format.DECIMAL_SI),
    ("-500m", "-500m", Format.DECIMAL_SI),
    ("1Ki", "1Ki", Format.BINARY_SI),
    ("+1Ki", "1Ki", Format.BINARY_SI),
    ("1.5Gi", "1536Mi", Format.BINARY_SI),
    ("1000Ki", "1000Ki", Format.BINARY_SI),
    ("1.5Ki", "1536", Format.BINARY_SI),  # not a multiple of 1024: the plain number
    ("0.5Ki", "512", Format.BINARY_SI),  # below 1024: printed as DecimalSI
    ("1e10", "10e9", Format.DECIMAL_EXPONENT),
    ("12e-3", "12e-3", Format.DECIMAL_EXPONENT),
    ("1E3", "1e3", Format.DECIMAL_EXPONENT),
    ("0.0000000001", "1n", Format.DECIMAL_SI),  # rounded up to nano precision
]


@pytest.mark.parametrize(("text", "canonical", "fmt"), CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_form_and_format(text: str, canonical: str, fmt: Format) -> None:
    quantity = Quantity.parse(text)
    assert str(quantity) == canonical
    assert quantity.format is fmt
    assert Quantity.parse(canonical) == quantity


@pytest.mark.parametrize(
    ("raw", "milli", "whole"),
    [("1.5", 1500, 2), ("1500m", 1500, 2), ("2048m", 2048, 3), ("1Gi", 1073741824000, 1073741824),
     ("-1.5", -1500, -2), ("250u", 1, 1), (2, 2000, 2), (0.1, 100, 1)],
)  # fmt: skip
def test_values_round_away_from_zero(raw: object, milli: int, whole: int) -> None:
    quantity = Quantity.parse(raw)
    assert (quantity.milli_value(), quantity.ceil_value()) == (milli, whole)


@pytest.mark.parametrize(
    "bad", ["", "-", "1.2.3", "Ki", "1KiB", "1 Gi", "lots", "1e", "0x10", True, None, [1]]
)
def test_rejects_what_kubernetes_rejects(bad: object) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(bad)


def test_sum_takes_the_format_of_the_first_non_zero_operand() -> None:
    total = Quantity.parse("0") + Quantity.parse("1Gi") + Quantity.parse("512Mi")
    assert str(total) == "1536Mi"
    assert str(Quantity.parse("1024m") + Quantity.parse("2048m")) == "3072m"


def test_binary_values_are_capped_at_int64_and_decimal_ones_are_not() -> None:
    assert Quantity.parse("100Ei").value == 2**63 - 1
    assert Quantity.parse("100E").value == Fraction(10**20)


@given(st.fractions(min_value=-(10**12), max_value=10**12, max_denominator=10**9))
def test_canonical_string_parses_back_to_the_same_value(value: Fraction) -> None:
    quantity = Quantity(value)
    assert Quantity.parse(str(quantity)) == quantity
    assert abs(quantity.value - value) < Fraction(1, 10**9), "only rounded to nano precision"


def test_a_non_decimal_value_is_rounded_to_nano_precision() -> None:
    assert str(Quantity(Fraction(1, 3))) == "333333334n"

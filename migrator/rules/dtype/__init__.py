"""Dtypes that bite on the targets: float64, complex numbers and FFTs, fp8."""

from __future__ import annotations

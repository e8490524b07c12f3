"""What the device service accepts: the tutorial's request body, and how a model code is normalized.

A code is trimmed, upper-cased and stripped of one region suffix, then must match ^[A-Z0-9]{3,20}$.
The tutorial's rule: "CPH2223IN 应该使用 CPH2223". A suffix is stripped only when a digit precedes
it and at least three characters remain, so codes that merely end in these letters keep them.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

DEFAULT_MARKET_NAME = "营销名未解密"
CODE_PATTERN = re.compile(r"^[A-Z0-9]{3,20}$")
REGION_SUFFIXES = (
    "EEA",
    "IN",
    "CN",
    "EU",
    "UK",
    "US",
    "JP",
    "KR",
    "TW",
    "HK",
    "ID",
    "TH",
    "VN",
    "PH",
    "MY",
    "SG",
    "RU",
    "BR",
    "MX",
    "TR",
    "AE",
    "SA",
    "EG",
    "GL",
)  # EEA first: longest match wins


def normalize_code(raw: str) -> str:
    code = raw.strip().upper()
    for suffix in REGION_SUFFIXES:
        base = code[: -len(suffix)]
        if code.endswith(suffix) and len(base) >= 3 and base[-1].isdigit():
            return base
    return code


class ModelIn(BaseModel):
    """Body of POST /api/models."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    model: str = Field(description="机型代码，例如 CPH2223; region suffixes such as IN/CN are stripped")
    marketName: str | None = Field(DEFAULT_MARKET_NAME, max_length=100, description="中文营销名")
    marketNameEn: str | None = Field(None, max_length=100, description="英文营销名")
    createdBy: str | None = Field(None, max_length=64, description="who added it (set by the agent's host)")

    @field_validator("model")
    @classmethod
    def _valid_code(cls, value: str) -> str:
        code = normalize_code(value)
        if not CODE_PATTERN.match(code):
            raise ValueError(f"must be 3-20 letters or digits (after normalization: {code!r})")
        return code

    @field_validator("marketName")
    @classmethod
    def _default_market_name(cls, value: str | None) -> str:
        return value or DEFAULT_MARKET_NAME

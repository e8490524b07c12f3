"""What the device service accepts: the tutorial's request body, model codes and display text.

A code is written as manufacturers write it: ASCII letters and digits, in groups a single hyphen or
space may separate (CPH2223, SM-G9910, ALN-AL00, "SM G9910"), with blanks around it dropped; checked
*before* it is upper-cased, so that no Unicode case folding can turn "uniſ12" into "UNIS12". Its
stored form, the one form every way of writing it comes to: upper case, the separators dropped (3 to
20 letters and digits remain), and one region suffix removed — the tutorial's rule "CPH2223IN 应该使用
CPH2223" — when a digit precedes it and at least three characters remain, so codes that merely end
in these letters keep them. SM-G9910, sm-g9910, "SM G9910" and SMG9910 are all SMG9910. Names are
display text: no control characters and no bidirectional embeddings, overrides or isolates.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_MARKET_NAME = "营销名未解密"
PAGE_MOST = 100  # the most records one search answers with, and the most codes it may name
# 3 to 20 letters and digits, a single hyphen or space allowed between two of them; blanks around
CODE_PATTERN = r"^[ \t\r\n]*[A-Za-z0-9](?:[- ]?[A-Za-z0-9]){2,19}[ \t\r\n]*$"
FORBIDDEN_IN_TEXT = r"\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
TEXT_PATTERN = f"^[^{FORBIDDEN_IN_TEXT}]*$"
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

_CODE = re.compile(CODE_PATTERN.removeprefix("^").removesuffix("$"))
_FORBIDDEN = re.compile(f"[{FORBIDDEN_IN_TEXT}\\ud800-\\udfff]")  # lone surrogates cannot be stored either


def normalize_code(raw: str) -> str | None:
    """The stored form of a model code, or None when `raw` is not a model code."""
    if not _CODE.fullmatch(raw):
        return None
    return _canonical(re.sub(r"[- ]", "", raw.strip(" \t\r\n")))


def to_code(raw: str) -> str:
    """The stored form of `raw`; ValueError naming the rule when it is not a model code (a validator)."""
    code = normalize_code(raw)
    if code is None:
        raise ValueError(code_problem(raw))
    return code


def code_problem(raw: str) -> str:
    """Why `raw` is not a model code, in the words of the rule it breaks."""
    rule = "must be 3-20 letters or digits, in groups a single hyphen or space may separate"
    if raw.isascii():
        return f"{rule} (after normalization: {_canonical(raw.strip())!r})"
    return f"{rule}, ASCII only (A-Z, a-z, 0-9: other letters are not case-folded)"


def _canonical(code: str) -> str:
    code = code.upper()
    for suffix in REGION_SUFFIXES:
        base = code[: -len(suffix)]
        if code.endswith(suffix) and len(base) >= 3 and base[-1].isdigit():
            return base
    return code


def check_display_text(value: str) -> str:
    """`value` without surrounding blanks; ValueError naming the first character that may not be shown."""
    found = _FORBIDDEN.search(value)
    if found:
        raise ValueError(
            f"must not contain control or bidirectional-control characters (found U+{ord(found[0]):04X})"
        )
    return value.strip()


class ModelIn(BaseModel):
    """Body of POST /api/models."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        description="机型代码，例如 CPH2223 或 SM-G9910; stored upper-case without hyphens or spaces, "
        "region suffixes such as IN/CN stripped",
        json_schema_extra={"pattern": CODE_PATTERN},
    )
    marketName: str | None = Field(
        DEFAULT_MARKET_NAME,
        max_length=100,
        description="中文营销名",
        json_schema_extra={"pattern": TEXT_PATTERN},
    )
    marketNameEn: str | None = Field(
        None, max_length=100, description="英文营销名", json_schema_extra={"pattern": TEXT_PATTERN}
    )
    createdBy: str | None = Field(
        None,
        max_length=64,
        description="who added it (set by the agent's host)",
        json_schema_extra={"pattern": TEXT_PATTERN},
    )

    @field_validator("model")
    @classmethod
    def _valid_code(cls, value: str) -> str:
        return to_code(value)

    @field_validator("marketName", "marketNameEn", "createdBy")
    @classmethod
    def _displayable(cls, value: str | None) -> str | None:
        return None if value is None else check_display_text(value)

    @field_validator("marketName")
    @classmethod
    def _default_market_name(cls, value: str | None) -> str:
        return value or DEFAULT_MARKET_NAME


class MarketNamesIn(BaseModel):
    """Body of PATCH /api/models/{model}: the market names to set; a name left out stays as it is."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"minProperties": 1})

    marketName: str | None = Field(
        None,
        max_length=100,
        description="中文营销名 (null or empty: back to the default, 营销名未解密)",
        json_schema_extra={"pattern": TEXT_PATTERN},
    )
    marketNameEn: str | None = Field(
        None,
        max_length=100,
        description="英文营销名 (null or empty: none)",
        json_schema_extra={"pattern": TEXT_PATTERN},
    )

    @field_validator("marketName", "marketNameEn")
    @classmethod
    def _displayable(cls, value: str | None) -> str | None:
        return None if value is None else check_display_text(value)

    @model_validator(mode="after")
    def _names_something(self) -> MarketNamesIn:
        if not self.model_fields_set:
            raise ValueError("name marketName or marketNameEn (or both)")
        return self

    def changes(self) -> dict[str, str | None]:
        """column -> its new value, for the names the body gave."""
        given = {name: getattr(self, name) or None for name in sorted(self.model_fields_set)}
        if "marketName" in given:
            given["marketName"] = given["marketName"] or DEFAULT_MARKET_NAME
        return given

"""The values a request holds as written (app/models/embedded/values.py): codes, and market names told
from codes. Phrases written for development (the evaluation's held-out prompts are not used here)."""

from __future__ import annotations

import pytest

from app.models.embedded import values
from app.models.embedded.values import codes


@pytest.mark.parametrize(
    "text, found",
    [
        ("请把 SM-A5360 和 RMX2001 都存进去", ["SM-A5360", "RMX2001"]),
        ("Add model GM1910 (OnePlus 7 Pro)", ["GM1910"]),
        ("录入 sm a5360", ["a5360"]),  # lower-case groups are joined by a hyphen only
        ("录入 SM A5360", ["SM A5360"]),
        ("Is XT2041-4 there?", ["XT2041-4"]),
        ("型号CPH1920添加", ["CPH1920"]),
        ("100 除以 8", []),
        ("型号 PKX110，内存 12GB+256GB，5000mAh", ["PKX110"]),  # sizes are no codes
        ("新到的米14U，码是 24030PN60C", ["24030PN60C"]),  # a run of three beside a code is a nickname's
    ],
)
def test_codes_as_written(text, found):
    assert codes(text) == found


@pytest.mark.parametrize(
    "text, names, found",
    [
        ("register RMX3998, the realme Neo7 SE", ["realme Neo7 SE"], ["RMX3998"]),  # "Neo7" is no code
        ("is the vivo X100 Pro in the db?", ["vivo X100 Pro"], []),
        ("有没有一加 12 这个机型", ["一加 12"], []),
        ("Galaxy S24 Ultra SM-S928B", ["Galaxy S24 Ultra"], ["SM-S928B"]),
        ("把 OPPO CPH2437 加进去", [], ["CPH2437"]),  # a brand alone is no name, and no code's part
        ("把华为 ALN-AL00 存到库里", [], ["ALN-AL00"]),
    ],
)
def test_market_names_are_told_from_codes(text, names, found):
    assert (values.names(text), values.codes(text)) == (names, found)


@pytest.mark.parametrize(
    "clause, name",
    [
        ("一加 12 得唔得", "一加 12"),  # the words of the sentence after the name are no part of it
        ("就写 小米 14 Ultra 啦", "小米 14 Ultra"),  # nor the words before it
        ("vivo X Fold3 thx", "vivo X Fold3"),
        ("OPPO Reno 12 Pro. no chinese name yet", "OPPO Reno 12 Pro"),
        ("“Redmi K60 至尊版” on the box", "Redmi K60 至尊版"),  # what stands in quotes
        ("华为 Mate 60 Pro 😂 finally", "华为 Mate 60 Pro"),
        ("真我GT Neo6\tnext column", "真我GT Neo6"),  # a tab ends it
        ("维沃 X100", "维沃 X100"),  # a brand's Chinese name the list lacks, first in the clause
        ("moto g84", "moto g84"),
        ("改做 vivo X200 标准版 好多客以为系pro", "vivo X200 标准版"),  # an edition is a name's
        ("先空着", None),  # no name yet: the reader asks
        ("against it", None),
    ],
)
def test_the_name_after_a_label_is_the_name_alone(clause, name):
    assert values.name_span(clause) == name

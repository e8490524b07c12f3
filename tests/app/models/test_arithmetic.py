"""Arithmetic in words for the demo model (app/models/embedded/arithmetic.py): operator words, shares,
discounts, prices times quantities. Phrases written for development, and the issue's own examples (the
evaluation's held-out prompts are not used here)."""

from __future__ import annotations

import pytest

from app.models.embedded.arithmetic import arithmetic


@pytest.mark.parametrize(
    "text, expression",
    [
        ("请算 8 乘以 (2 加 3)", "8 * (2 + 3)"),
        ("What's 144 divided by 12?", "144 / 12"),
        ("100 减去 37 等于多少", "100 - 37"),
        ("2 plus 2 times 3", "2 + 2 * 3"),
        ("（1 + 2）× 3", "(1 + 2) * 3"),  # full-width brackets read as ASCII ones
        ("１２＋３０", "12+30"),
        ("把 PHB110 加到数据库", None),
        ("hello", None),
    ],
)
def test_arithmetic_in_words(text, expression):
    assert arithmetic(text) == expression


@pytest.mark.parametrize(
    "said, expression",
    [
        ("what is 20% of 1500", "(20 / 100 * 1500)"),
        ("1500 的 15%", "(1500 * 15 / 100)"),
        ("百分之 30 of 200", "(30 / 100 * 200)"),
        ("25% off 800", "(800 * (100 - 25) / 100)"),
        ("a 1200 phone at 10% off", "(1200 * (100 - 10) / 100)"),
        ("2999 打八折", "2999 * 8 / 10"),
        ("4999 八五折是多少", "4999 * 85 / 100"),
        ("一部手机 1999 元，买 5 部多少钱", "1999 * 5"),  # the issue's
        ("每台 899，进了 12 台", "899 * 12"),
        ("2 units at 999 apiece", "2 * 999"),
        ("we got 4 boxes at $120 and shipping 30", "4 * 120 + 30"),
        ("45 加 67", "45 + 67"),
        ("我有 3 部手机", None),  # a quantity alone is no sum
        ("RMX3085 有没有", None),
    ],
)
def test_shares_discounts_and_prices_are_arithmetic(said, expression):
    assert arithmetic(said) == expression


@pytest.mark.parametrize(
    "said, expression",
    [
        ("from 80 to 100, what percent increase is that?", "(100 - 80) / 80 * 100"),
        ("去年卖了 200 台，今年 260 台，增长了百分之几？", "(260 - 200) / 200 * 100"),
        ("price went from 50 to 40, by what percentage did it drop?", "(50 - 40) / 50 * 100"),
        ("it costs 1200, 25% off, then a 100 yuan voucher: I pay?", "(1200 * (100 - 25) / 100) - 100"),
        ("原价 2000 打八折，再用一张 100 元优惠券，多少钱", "2000 * 8 / 10 - 100"),
        ("打八折后 200 元是多少", "200 * 8 / 10"),  # the discount said before the price
        ("3 个人平分 90 元，每人多少", "90 / 3"),  # an even split: the amount over the count
        ("split 120 between 4 people", "120 / 4"),
    ],
)
def test_a_change_in_percent_and_a_coupon_are_sums(said, expression):
    """A change asked for in percent is the rise (or the fall, where the words say so) over the first
    number; a coupon comes off the price after its discount."""
    assert arithmetic(said) == expression

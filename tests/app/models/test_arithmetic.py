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
        ("three at forty-five each, a fourth less a twenty per cent discount", None),  # 20 is no 2 and 0
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


@pytest.mark.parametrize(
    "said, expression",
    [
        ("四百二十乘以十六", "420 * 16"),  # numbers written in words, in figures first
        ("what is three hundred and twelve minus forty", "312 - 40"),
        ("六千五减八百，再乘以三", "(6500 - 800) * 3"),  # an operation on what came before
        ("标价 3599，会员打九五折，付多少", "3599 * 95 / 100"),  # the price, then its factor
        ("an invoice of 800 plus 15% tax", "(800 * (100 + 15) / 100)"),
        ("ran 300 tests, 9 failed, what is the failure rate in percent", "9 / 300 * 100"),  # a share
        ("一共 96 件，4 个人分，每人几件", "96 / 4"),
        ("410 pounds divided equally among five volunteers", "410 / 5"),
        ("budget 2000, 3 chairs at 450 each, how much is left", "2000 - (3 * 450)"),
        ("手上有 8 千，买了 2 台每台 2600，还剩多少", "8000 - (2 * 2600)"),
        ("50 台里送修 8 台，其余多少台", "50 - 8"),
        ("4 箱 每箱 30，2 袋 每袋 15，一共多少", "4 * 30 + 2 * 15"),
        ("这批共三百台，其中百分之二十返厂，返厂几台", "(300 * 20 / 100)"),
    ],
)
def test_a_word_problem_is_its_sum(said, expression):
    """A story of numbers (app/models/embedded/word_problems.py): written numbers read as figures, a
    split, a share of a whole in percent, what a budget or a whole leaves, prices per unit."""
    assert arithmetic(said) == expression

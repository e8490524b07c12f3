"""The chat on the embedded demo model (no key), in a pseudo-terminal whose locale names no language, as a
newcomer has it: after a refusal its words and answers stay in the person's language, and the device
service's placeholder market name is explained where an answer shows it. Planned turns only: the local
model's server is never started."""

from __future__ import annotations

from tests.project.test_newcomer import Chat, answer_in, in_chinese

STEP_SECONDS = 120


def test_after_a_refusal_the_chat_keeps_the_persons_language(tmp_path):
    """Issue: after `n` to 允许吗? [y/N] in a Chinese chat, the next reply came in English — a message with no
    words of a language (the code typed again) was read as English, by the chat and by the demo alike."""
    chat = Chat(tmp_path)
    try:
        chat.until("You:", timeout=STEP_SECONDS)
        chat.type("把机型 CPH2223 添加到数据库")
        chat.waiting("允许吗? [y/N]", timeout=STEP_SECONDS)
        chat.type("n")
        refused = answer_in(chat.waiting(timeout=STEP_SECONDS), "n")
        assert refused == "add_device_model 没有完成：你没有同意，所以没有执行。"

        chat.type("CPH2223")  # the code alone, again: it proposes the add, asked in Chinese
        asked = chat.until("? [y/N]", timeout=STEP_SECONDS)
        assert "允许吗? [y/N]" in asked, asked
        chat.type("n")
        again = answer_in(chat.waiting(timeout=STEP_SECONDS), "n")
        assert again == "add_device_model 没有完成：你没有同意，所以没有执行。"

        chat.type("12*7")
        summed = answer_in(chat.waiting(timeout=STEP_SECONDS), "12*7")
        assert summed.endswith("计算结果：12*7 = 84") and in_chinese(summed), summed
    finally:
        chat.child.close(force=True)


def test_the_placeholder_market_name_is_explained_where_it_is_shown(tmp_path):
    """Issue: `营销名未解密` (the device service's name for a model with no market name yet) was shown and
    never explained; the answer that shows it says what it means."""
    chat = Chat(tmp_path)
    try:
        chat.until("You:", timeout=STEP_SECONDS)
        chat.type("把机型 CPH2223 添加到数据库")
        chat.waiting("允许吗? [y/N]", timeout=STEP_SECONDS)
        chat.type("y")
        added = answer_in(chat.waiting(timeout=STEP_SECONDS), "y").splitlines()[-1]
        assert added == "机型 CPH2223 已添加到数据库（营销名：营销名未解密，即暂无营销名）。"
        chat.type("数据库里有 CPH2223 吗？")
        found = answer_in(chat.waiting(timeout=STEP_SECONDS), "数据库里有 CPH2223 吗？").splitlines()[-1]
        assert found == "数据库里有 1 个匹配 CPH2223 的机型：CPH2223 (营销名未解密，即暂无营销名)。"
    finally:
        chat.child.close(force=True)

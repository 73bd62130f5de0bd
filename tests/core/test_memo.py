"""The bounded memo keeps answers by key until it holds its limit, then starts afresh."""

from __future__ import annotations

from kernelscope.core.memo import Memo


def test_an_answer_is_kept_and_returned() -> None:
    memo: Memo[str, int] = Memo(4)
    assert memo.keep("a", 1) == 1
    assert memo.get("a") == 1
    assert memo.get("b") is None


def test_a_full_memo_forgets_every_answer_before_keeping_the_next() -> None:
    memo: Memo[int, int] = Memo(3)
    for key in range(3):
        memo.keep(key, key * 10)
    assert dict(memo) == {0: 0, 1: 10, 2: 20}
    memo.keep(3, 30)
    assert dict(memo) == {3: 30}

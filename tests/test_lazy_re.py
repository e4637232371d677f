"""core.lazy_re: a pattern compiled on first use behaves as the compiled one."""

import re

from inspector.core.lazy_re import lazy


def test_a_lazy_pattern_matches_as_the_compiled_one():
    pattern = lazy(r"(a+)(b?)", re.I)
    compiled = re.compile(r"(a+)(b?)", re.I)
    for text in ("", "xAAb", "aaa", "ba"):
        for method in ("match", "fullmatch", "search", "findall", "split"):
            mine, theirs = getattr(pattern, method)(text), getattr(compiled, method)(text)
            assert (mine.group() if isinstance(mine, re.Match) else mine) == (
                theirs.group() if isinstance(theirs, re.Match) else theirs
            )
    assert pattern.sub("-", "aab aa") == compiled.sub("-", "aab aa") == "- -"
    assert [m.span() for m in pattern.finditer("aXab")] == [(0, 1), (2, 4)]
    assert pattern.pattern == "(a+)(b?)" and pattern.flags == compiled.flags and pattern.groups == 2


def test_nothing_is_compiled_until_used():
    pattern = lazy("[")  # invalid: compiling it raises, so only a use may
    try:
        pattern.search("x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern compiled")

"""Trace: every occurrence, its tier, and whether this very occurrence survives in the visible text."""

import json

import pytest
from forget_chats import FACT, call, filler, inspection, middle, out
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.analysis.trace import _escapes_for, trace
from inspector.core.errors import UsageError
from inspector.core.model import Chat, Consumed, Message
from inspector.core.scout.shorten import shorten_string


def test_fact_in_the_middle_of_a_truncated_output_is_hidden():
    items = [{"role": "user", "content": "go"}, call("read", "c0", {"p": "x"}), out("read", "c0", middle()), *filler(3)]
    ins = inspection(items, full_tool_outputs=1, max_tool_chars=1)
    result = trace(ins, FACT)
    [o] = result.occurrences
    assert (o.message, o.tier, o.reason, o.visible, o.field) == (2, "truncated", "middle_band", False, "content")
    assert o.name == "read" and o.id == "c0"
    assert "cut keeps only the first" in o.why
    assert "sees none" in result.verdict()


@pytest.mark.parametrize("where,visible", [("head", True), ("tail", True), ("middle", False)])
def test_truncated_output_keeps_head_and_tail(where, visible):
    body = "y" * 2000
    text = {"head": FACT + body, "tail": body + FACT, "middle": body[:1000] + FACT + body[1000:]}[where]
    items = [call("read", "c0", {}), out("read", "c0", text), *filler(2)]
    ins = inspection(items, full_tool_outputs=1, max_tool_chars=1)
    [o] = trace(ins, FACT).occurrences
    assert o.tier == "truncated"
    assert o.visible is visible
    # the independent check: the shortened string holds the fact exactly when we say it does
    assert (FACT in shorten_string(text)) is visible


def test_occurrence_straddling_the_cut_is_hidden():
    body = "z" * 3000
    shortened = shorten_string(body)
    head = len(shortened.split("<...")[0]) - len("Truncated (3000): ")
    text = "q" * (head - 5) + FACT + body  # starts in the head, ends in the cut
    ins = inspection([call("r", "c", {}), out("r", "c", text), *filler(2)], full_tool_outputs=1, max_tool_chars=1)
    [o] = trace(ins, FACT).occurrences
    assert o.spot.start < head < o.spot.end
    assert not o.visible


def test_dropped_and_kept_and_non_tool_messages():
    items = [{"role": "user", "content": "remember " + FACT}, call("r", "c0", {}), out("r", "c0", FACT), *filler(5)]
    ins = inspection(items, full_tool_outputs=1, max_tool_calls=2, max_tool_chars=1)
    occurrences = trace(ins, FACT).occurrences
    assert [(o.message, o.tier, o.visible) for o in occurrences] == [(0, "full", True), (2, "dropped", False)]
    assert occurrences[1].reason == "beyond_max"


def test_escaped_text_is_found_once_in_decoded_form():
    text = 'config said "retry": 3\nthen ' + FACT
    items = [call("r", "c0", {}), out("r", "c0", text)]
    ins = inspection(items)
    raw = items[1]["content"]
    assert '"retry": 3\nthen' not in raw  # stored escaped
    result = trace(ins, '"retry": 3\nthen')
    [o] = result.occurrences
    assert o.field == "content" and o.visible
    assert raw[o.raw_start : o.raw_end] == '\\"retry\\": 3\\nthen'
    # a fact with nothing to escape is in both the raw and the decoded text: still one occurrence
    assert len(trace(ins, FACT).occurrences) == 1


def test_escaped_form_typed_as_stored_is_found_in_raw():
    items = [call("r", "c0", {}), out("r", "c0", "line one\nline two")]
    [o] = trace(inspection(items), "one\\nline").occurrences
    assert o.field == "content" and o.spot.text == "one\nline"


def test_names_and_ids_are_found_in_the_raw_json():
    items = [call("read_file", "call_77", {"path": "a"}), out("read_file", "call_77", "ok")]
    result = trace(inspection(items), "call_77")
    assert [(o.message, o.field) for o in result.occurrences] == [(0, "message"), (1, "message")]
    assert all(o.visible for o in result.occurrences)


def test_call_arguments_are_searched_and_cut():
    long_arg = "a" * 1000 + FACT + "b" * 1000
    items = [call("w", "c0", {"body": long_arg, "mode": "x"}), out("w", "c0", "ok"), *filler(2)]
    ins = inspection(items, full_tool_calls=0, full_tool_outputs=1, max_tool_chars=1)
    [o] = trace(ins, FACT).occurrences
    assert o.field == "arguments.body" and o.tier == "truncated" and not o.visible
    [m] = trace(ins, '"mode"').occurrences  # outside the cut strings: kept in the re-serialised JSON
    assert m.visible


def test_regex_and_ignore_case():
    items = [{"role": "user", "content": "Backoff 10 then BACKOFF 20"}]
    ins = inspection(items)
    assert len(trace(ins, "backoff", ignore_case=True).occurrences) == 2
    assert len(trace(ins, "backoff").occurrences) == 0
    hits = trace(ins, r"backoff (\d+)", regex=True, ignore_case=True).occurrences
    assert [o.spot.text for o in hits] == ["Backoff 10", "BACKOFF 20"]
    with pytest.raises(UsageError):
        trace(ins, "(", regex=True)
    with pytest.raises(UsageError):
        trace(ins, "")


def test_not_found_and_consumed_only():
    items = [{"role": "user", "content": "hello"}]
    assert "never occurs" in trace(inspection(items), FACT).verdict()
    gone = Message({"role": "user", "content": "the backoff is " + FACT}, line=3)
    chat = Chat([Message(dict(items[0]))], consumed=[Consumed(gone, "clear", "removed by a clear at line 5", 0)])
    result = trace(inspection(None, chat=chat), FACT)
    [o] = result.occurrences
    assert (o.tier, o.visible, o.message, o.row, o.reason) == ("consumed", False, None, 0, "clear")
    assert "consumed before the strategies" in result.verdict()


def test_scout_error_hides_everything():
    items = [{"role": "user", "content": FACT}, {"role": "function_call", "content": "{not json"}]
    result = trace(inspection(items), FACT)
    [o] = result.occurrences
    assert not o.visible and result.error
    assert o.tier == "undecided" and "scout-ai raised" in o.why


def test_visibility_agrees_with_the_prepared_text_on_random_chats():
    import random

    import chatgen

    for seed in range(8):
        items = chatgen.chat(seed, messages=40, scale=1500, extras=False)
        ins = inspection(items, full_tool_outputs=2, max_tool_chars=3000)
        rng = random.Random(seed)
        prompt = ins.prompt()
        for _ in range(5):
            m = rng.randrange(len(items))
            data = json.loads(items[m]["content"]) if items[m]["role"].startswith("function") else None
            source = data.get("content") if isinstance(data, dict) and isinstance(data.get("content"), str) else None
            if not source or len(source) < 30:
                continue
            a = rng.randrange(len(source) - 12)
            needle = source[a : a + 12]
            for o in trace(ins, needle).occurrences:
                if o.message != m or o.field != "content":
                    continue
                shown = prompt.visible_content(m)
                if o.tier == "full":
                    assert o.visible
                elif o.tier == "dropped":
                    assert not o.visible
                else:
                    # the head and tail kept are those of shorten_string on the original string
                    cut = shorten_string(source)
                    kept_head = cut[len(f"Truncated ({len(source)}): ") :].split("<...")[0]
                    in_head = o.spot.end <= len(kept_head)
                    decoded = json.loads(shown)["content"]
                    tail = decoded.split("...>")[-1]
                    in_tail = o.spot.start >= len(source) - len(tail)
                    assert o.visible == (in_head or in_tail)


@settings(max_examples=200, deadline=None)
@given(
    value=st.text(alphabet=st.sampled_from(list('ab"\\/\n\té😀\x01')), max_size=12),
    needle=st.text(alphabet=st.sampled_from(list('ab"\\/\n\té😀\x01')), min_size=1, max_size=3),
    ascii_only=st.booleans(),
)
def test_a_decoded_hit_needs_an_escape_the_check_sees(value, needle, ascii_only):
    """Trace parses a tool message only when its raw JSON holds an escape of one of the text's characters:
    whenever the decoded value holds the text and the raw JSON does not, that escape is there."""
    raw = json.dumps({"content": value}, ensure_ascii=ascii_only)
    if needle in value and needle not in raw:
        assert _escapes_for(needle, False).search(raw) is not None
        assert _escapes_for(needle, True).search(raw) is not None


def test_one_row_is_numbered_as_every_row_is():
    from inspector.core.numbering import RowNumbers

    chat = Chat(
        [Message({"role": "user", "content": str(i)}) for i in range(6)],
        consumed=[Consumed(Message({"role": "option", "content": "x"}), "option", "", b) for b in (3, 0, 3, 6)],
    )
    rows = RowNumbers.of(chat)
    assert [RowNumbers.message_row(chat, i) for i in range(6)] == [rows.row_of_message(i) for i in range(6)]
    assert [RowNumbers.message_row(chat, i) for i in range(6)] == [1, 2, 3, 6, 7, 8]


def test_trace_reports_progress_and_stops_when_asked():
    from inspector.core.analysis.trace import TraceStopped, trace
    from inspector.core.inspection import Inspection
    from inspector.core.model import Chat, Message
    from inspector.core.scout.settings import resolve

    chat = Chat([Message({"role": "user", "content": f"line {k}"}) for k in range(600)])
    inspection = Inspection(chat, resolve(env={}, config_files=[]))
    seen: list[tuple[int, int]] = []
    found = trace(inspection, "line 5", progress=lambda scanned, total: seen.append((scanned, total)))
    assert seen == [(0, 600), (256, 600), (512, 600)] and len(found.occurrences) == 111
    asked = iter([False, True])
    with pytest.raises(TraceStopped) as stop:
        trace(inspection, "line", cancelled=lambda: next(asked))
    assert (stop.value.scanned, stop.value.total) == (256, 600)


def test_a_text_found_only_in_another_case_says_so():
    from inspector.core.analysis.trace import trace
    from inspector.core.inspection import Inspection
    from inspector.core.model import Chat, Message
    from inspector.core.scout.settings import resolve

    chat = Chat([Message({"role": "user", "content": "the Reconnect backoff"})])
    inspection = Inspection(chat, resolve(env={}, config_files=[]))
    verdict = trace(inspection, "reconnect").verdict()
    assert verdict.endswith("It does occur when the case is ignored (--ignore-case; i in why).")
    assert "ignored" not in trace(inspection, "absent").verdict()
    assert trace(inspection, "reconnect", ignore_case=True).occurrences


def test_a_text_found_only_as_a_regular_expression_says_so():
    from inspector.core.analysis.trace import trace
    from inspector.core.inspection import Inspection
    from inspector.core.model import Chat, Message
    from inspector.core.scout.settings import resolve

    chat = Chat([Message({"role": "user", "content": "set reconnect_backoff_ms=250"})])
    inspection = Inspection(chat, resolve(env={}, config_files=[]))
    start = "'reconnect.backoff' never occurs in the chat (not in any message, nor in anything consumed before the strategies)."
    assert trace(inspection, "reconnect.backoff").verdict() == (
        start + " It does occur read as a regular expression (--regex; x in why)."
    )
    assert (
        trace(inspection, "RECONNECT.BACKOFF")
        .verdict()
        .endswith(
            " It does occur read as a regular expression with the case ignored (--regex --ignore-case; x and i in why)."
        )
    )
    # no suggestion for what does not match either way, nor for text with no sign of a regular expression
    assert trace(inspection, "reconnect.delay").verdict().endswith("strategies).")
    assert trace(inspection, "reconnect backoff").verdict().endswith("strategies).")

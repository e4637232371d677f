"""The forgetting audit: each pattern found on a chat built to contain it, nothing on a clean chat."""

from forget_chats import call, filler, inspection, out

from inspector.core.analysis.audit import audit, error_ends
from inspector.core.model import Chat, Consumed, Finding, Message
from inspector.core.setup import Setup


def kinds(findings):
    return sorted({f.kind for f in findings})


def test_clean_chat_has_no_findings():
    items = [{"role": "user", "content": "hi"}, *filler(5, size=100)]
    assert audit(inspection(items)) == []


def test_repeated_call_after_its_result_was_dropped():
    items = [
        call("read", "c0", {"path": "a.py"}),
        out("read", "c0", "x" * 2000),
        *filler(4),
        call("read", "c9", {"path": "a.py"}),
        out("read", "c9", "x" * 2000),
    ]
    findings = audit(inspection(items, full_tool_outputs=1, max_tool_calls=2, max_tool_chars=1))
    [f] = [f for f in findings if f.kind == "repeated_call"]
    assert f.messages == (0, 1, 10)
    assert "dropped" in f.message


def test_repeat_is_fine_when_the_result_was_still_there():
    items = [
        call("read", "c0", {"path": "a.py"}),
        out("read", "c0", "x" * 2000),
        call("read", "c1", {"path": "a.py"}),
        out("read", "c1", "x" * 2000),
    ]
    assert "repeated_call" not in kinds(audit(inspection(items)))


def test_names_and_ids_that_are_json_objects_or_arrays_pair_and_repeat_like_strings():
    # scout-ai reads a tool name or id of any JSON type; the audit must compare them, not crash on hashing
    name, ident = {"tool": "read"}, ["c", 0]
    items = [
        call(name, ident, {"path": "a.py"}),
        out(name, ident, "x" * 2000),
        *filler(4),
        call(name, ["c", 9], {"path": "a.py"}),
        out(name, ["c", 9], "x" * 2000),
    ]
    findings = audit(inspection(items, full_tool_outputs=1, max_tool_calls=2, max_tool_chars=1))
    [f] = [f for f in findings if f.kind == "repeated_call"]
    assert f.messages == (0, 1, 10)
    assert "dropped" in f.message


def test_call_kept_but_output_dropped_and_the_reverse():
    items = [call("a", "c0", {"q": 1}), out("a", "c0", "o" * 300), *filler(3, size=300)]
    findings = audit(inspection(items, full_tool_outputs=0, max_tool_calls=10, max_tool_outputs=1, max_tool_chars=1))
    f = next(f for f in findings if f.kind == "call_without_output")
    assert f.messages == (0, 1)
    findings = audit(inspection(items, full_tool_outputs=0, max_tool_calls=1, max_tool_outputs=10, max_tool_chars=1))
    assert "output_without_call" in kinds(findings)


def test_truncated_output_whose_cut_removed_an_error():
    trace_text = (
        "running tests\n" + "ok\n" * 100 + "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n    main()\n'
        "KeyError: 'reconnect_backoff_ms'\n" + "cleanup\n" * 100
    )
    items = [call("run_tests", "c0", {}), out("run_tests", "c0", trace_text), *filler(2)]
    findings = audit(inspection(items, full_tool_outputs=1, max_tool_chars=1))
    [f] = [f for f in findings if f.kind == "cut_error"]
    assert f.messages == (1,)
    # an error at the very end survives in the kept tail: no finding
    tail_error = "ok\n" * 300 + "ValueError: bad"
    items = [call("run_tests", "c0", {}), out("run_tests", "c0", tail_error), *filler(2)]
    assert "cut_error" not in kinds(audit(inspection(items, full_tool_outputs=1, max_tool_chars=1)))


def test_error_ends_spans():
    text = 'a\nTraceback (most recent call last):\n  File "x", line 1\nValueError: v\nb\n'
    spans = error_ends(text)
    assert any(text[a:b].endswith("ValueError: v") for a, b in spans)


def test_clear_and_previous_response_id_and_loader_hazards():
    kept = [Message({"role": "user", "content": "now"}, line=9)]
    gone = [
        Consumed(Message({"role": "user", "content": f"old {i}"}, line=i + 1), "clear", "cleared at line 8", 0)
        for i in range(3)
    ]
    gone.append(
        Consumed(
            Message({"role": "previous_response_id", "content": "resp_1"}, line=12),
            "previous_response_id",
            "earlier turns live on the server",
            1,
        )
    )
    hazard = Finding("unclosed_block", "a block at line 4 never closes", line=4, indices=(0,))
    chat = Chat(kept, consumed=gone, findings=[hazard])
    findings = audit(inspection(None, chat=chat))
    assert kinds(findings) == ["consumed_turns", "loader_unclosed_block"]
    clear = next(f for f in findings if "clear" in f.message)
    assert clear.rows == (0, 1, 2) and "3 earlier" in clear.message and clear.line == 1
    loader = next(f for f in findings if f.kind == "loader_unclosed_block")
    assert loader.messages == (0,) and loader.rows == (3,)


def test_audit_on_the_samples_counts_only_real_lost_turns():
    from pathlib import Path

    from inspector.core.analysis.audit import audit
    from inspector.core.inspection import open_inspection

    samples = Path(__file__).resolve().parent.parent / "sample_chats"
    kinds = [f.kind for f in audit(open_inspection(samples / "directives.chat", Setup.of(env={}, config_files=[])))]
    assert kinds.count("consumed_turns") == 1  # the clear; a plain previous_response_id line is not lost turns
    session = audit(open_inspection(samples / "debug_session.chat", Setup.of(env={}, config_files=[])))
    assert not [f for f in session if f.kind == "consumed_turns"]
    assert any(f.kind == "repeated_call" for f in session)

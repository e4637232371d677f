"""The corpus view: `prompt-inspector DIR` lists a row per chat scored at every call, re-scores on an edit
without holding keys, opens a chat at its first refetch (Esc comes back) and lists unreadable files."""

from __future__ import annotations

import threading

import agentgen
import pytest

import inspector.ui.screens.corpus as corpus_module
from inspector.core.corpus.grid import Setting
from inspector.core.corpus.score import Job, score_chat
from inspector.core.setup import Setup
from inspector.ui.app import InspectorApp, is_corpus
from inspector.ui.screens.chat import ChatScreen
from inspector.ui.screens.corpus import CorpusScreen, chart_lines

from .conftest import settle, until

OVERRIDES = {"max_tool_chars": "5000"}  # as given with --set: outputs cut early, so chats refetch
BASE = Setup.of(overrides=OVERRIDES, config_files=[], env={})


@pytest.fixture
def runs(tmp_path):
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in range(4):
        text = agentgen.scout_chat(seed, calls=16, pool=3) if seed % 2 else agentgen.json_chat(seed, calls=16, pool=3)
        (folder / f"run{seed}.{'chat' if seed % 2 else 'json'}").write_text(text)
    (folder / "broken.json").write_text('[{"role": "user", "content": "unterminated')
    (folder / "[red]odd[@click=app.quit] .json").write_bytes(b"\x00\x01binary")  # untrusted name, unreadable content
    return folder


def corpus_app(folder) -> InspectorApp:
    app = InspectorApp(None, BASE, corpus=[str(folder)])
    app.animation_level = "none"
    app.debounce = 0.01
    return app


def expected_rows(folder, setup: Setup = BASE) -> dict[str, tuple[int, int, int, int, int | None]]:
    """path -> (calls, chars, tokens, refetches, first refetch) as the core scores the chat."""
    out = {}
    for path in sorted(folder.iterdir()):
        score = score_chat(str(path), Job(setup, (Setting(),)))
        if score.read:
            s = score.per_setting[0]
            out[str(path)] = (score.calls, s.chars, s.tokens, s.refetches, s.first_refetch)
    return out


def shown_rows(screen: CorpusScreen) -> dict[str, tuple[int, int, int, int, int | None]]:
    out = {}
    for row in screen.row_texts():
        if row[1] == "-":
            continue
        calls, chars, tokens, refetches = (int(cell.replace(",", "")) for cell in row[1:5])
        out[row[0]] = (calls, chars, tokens, refetches, None if row[5] == "-" else int(row[5]))
    return out


def scored(app) -> bool:
    screen = app.corpus_screen
    return screen is not None and screen.discovery is not None and not screen.scoring


def test_which_paths_open_the_corpus(tmp_path):
    chat = tmp_path / "a.json"
    chat.write_text("[]")
    assert not is_corpus([]) and not is_corpus([str(chat)]) and not is_corpus([str(tmp_path / "missing.json")])
    assert is_corpus([str(tmp_path)]) and is_corpus([str(chat), str(chat)]) and is_corpus([str(tmp_path / "*.json")])


def test_the_chart_marks_the_current_value():
    lines = chart_lines("max_tool_chars", 200, [(100, 50, 3), (200, 100, 1), (400, 0, 0)])
    assert lines[1].startswith("  ") and lines[2].startswith("▶") and lines[2].endswith("█" * 24)
    assert "1 refetches" in lines[2] and lines[3].rstrip().endswith("refetches")


async def test_a_folder_opens_as_the_corpus_with_the_core_numbers_worst_first(runs):
    app = corpus_app(runs)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(app, pilot, lambda: scored(app))
        screen = app.corpus_screen
        assert isinstance(app.screen, CorpusScreen) and screen is app.screen
        expected = expected_rows(runs)
        assert shown_rows(screen) == expected
        rows = screen.row_texts()
        refetches = [int(r[4]) for r in rows if r[4] != "-"]
        assert refetches == sorted(refetches, reverse=True) and max(refetches) > 0  # worst first
        # the unreadable files at the end, each with its one-line reason; the odd name shown as text
        unreadable = {r[0]: r[6] for r in rows if r[1] == "-"}
        assert set(unreadable) == {str(runs / "broken.json"), str(runs / "[red]odd[@click=app.quit] .json")}
        assert all(reason for reason in unreadable.values())
        assert "binary" in unreadable[str(runs / "[red]odd[@click=app.quit] .json")]
        assert "4 chat(s) scored" in screen.status_text and "2 unreadable or skipped" in screen.status_text
        # the chart of the key being edited: every value of its sweep, the current one marked
        await until(app, pilot, lambda: "▶" in screen.chart.text and "…" not in screen.chart.text)
        assert [line[0] for line in screen.chart.lines[1:]].count("▶") == 1 and "max_tool_chars" in screen.chart.text


async def test_an_edit_rescores_and_a_sort_key_typed_meanwhile_is_handled(runs, monkeypatch):
    real = corpus_module.score_chat
    gate = threading.Event()

    def held(path, job):  # the scoring waits for the test: keys are typed while it runs
        gate.wait(10)
        return real(path, job)

    async def until_true(predicate) -> None:  # a hang guard that does not wait for the held worker
        for _ in range(400):
            if predicate():
                return
            await pilot.pause(0.02)

    app = corpus_app(runs)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(app, pilot, lambda: scored(app))
        screen = app.corpus_screen
        before = shown_rows(screen)
        monkeypatch.setattr(corpus_module, "score_chat", held)
        await pilot.press("t")
        await pilot.pause()
        field = screen.editor.query_one("#th-full_tool_outputs")
        field.focus()
        await pilot.pause()
        field.value = ""
        await pilot.press("1")
        await until_true(lambda: screen.scoring)  # the debounce passed: the corpus is being scored again
        await pilot.press("escape", "1")  # back to the table, sort by path, while it scores
        await until_true(lambda: screen.sort_key == "path")
        assert screen.scoring and screen.sort_key == "path"  # handled at once, the scoring still under way
        assert "scoring 0 of 6 chats" in screen.status_text
        gate.set()
        await until(app, pilot, lambda: scored(app))
        after = shown_rows(screen)
        expected = expected_rows(runs, Setting((("full_tool_outputs", 1),)).setup(BASE))
        assert after == expected and after != before
        readable = [r[0] for r in screen.row_texts() if r[1] != "-"]
        assert readable == sorted(readable)  # the sort asked for while scoring holds
        assert "edited: full_tool_outputs=1" in screen.status_text


async def test_enter_opens_the_chat_at_its_first_refetch_and_escape_comes_back(runs):
    app = corpus_app(runs)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(app, pilot, lambda: scored(app))
        corpus = app.corpus_screen
        corpus.table.focus()
        await pilot.press("down")
        await pilot.pause()
        path = corpus.current_path()
        first = expected_rows(runs)[path][4]
        assert first is not None
        rows = corpus.row_texts()
        await pilot.press("enter")
        await until(app, pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen.call == first)
        chat = app.screen
        assert isinstance(chat, ChatScreen) and chat.path == path and chat.document.call == first
        assert app.chat is chat
        await pilot.press("escape")
        await until(app, pilot, lambda: app.screen is corpus)
        assert app.screen is corpus and corpus.current_path() == path and corpus.row_texts() == rows


async def test_an_unreadable_row_is_not_opened(runs):
    app = corpus_app(runs)
    async with app.run_test(size=(150, 40)) as pilot:
        await until(app, pilot, lambda: scored(app))
        corpus = app.corpus_screen
        corpus.table.focus()
        corpus.table.move_cursor(row=corpus.table.row_count - 1)  # the last row: an unreadable file
        await pilot.pause()
        assert corpus.row_texts()[-1][1] == "-"
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is corpus and any("cannot open" in n for n in app.notices)


async def test_nothing_to_open_exits_with_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    app = corpus_app(empty)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
    assert app.return_code == 2 and app.start_error and "no chat found" in app.start_error


def test_every_corpus_key_has_its_action_and_the_app_parser_takes_several_paths():
    from inspector.cli.main import build_app_parser
    from inspector.ui.keymap import CORPUS_ACTIONS, HOST_ACTIONS

    for action in CORPUS_ACTIONS:
        name = action.action.split("(")[0]
        owner = InspectorApp if name in HOST_ACTIONS else CorpusScreen
        assert hasattr(owner, f"action_{name}"), name
    parser = build_app_parser()
    assert parser.parse_args([]).chat == [] and parser.parse_args(["a.chat"]).chat == ["a.chat"]
    assert parser.parse_args(["runs", "more", "--set", "max_tool_chars=5"]).chat == ["runs", "more"]


async def test_an_unknown_strategy_exits_with_one_line(runs):
    app = InspectorApp(None, Setup.of(config_files=[], env={}, strategies="no_such_strategy"), corpus=[str(runs)])
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(app, pilot)
    assert app.return_code == 2 and app.start_error and "no_such_strategy" in app.start_error

"""Installed strategy plugins (the ``prompt_inspector.strategies`` entry-point group): one that fails to load
is neither a traceback nor silently missing. A warning line names the entry point and the error, and
naming the strategy fails with the reason."""

from __future__ import annotations

import importlib.metadata
import logging
import sys
from pathlib import Path

import pytest
from cli_runner import run_cli
from helpers import plan, rounds

from inspector.core.scout import strategies
from inspector.core.scout.strategies import (
    ENTRY_POINT_GROUP,
    PluginLoadFailed,
    UnknownStrategy,
    known_strategies,
    parse_spec,
    plugin_failures,
)
from inspector.demo import demo_chat_path

MODULES = {
    "piplugin_good": "def keep(messages):\n    return messages\n",
    "piplugin_broken": "raise RuntimeError('database not configured')\n",
    "piplugin_lines": "raise ValueError('first line\\n  second line')\n",
    "piplugin_value": "VALUE = 3\n",
}


@pytest.fixture
def install(monkeypatch, tmp_path: Path):
    """``install((name, "module:attr"), ...)``: these entry points, and nothing else, are installed; the
    registry starts again unread (and is put back after the test)."""
    for module, source in MODULES.items():
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(strategies, "_entry_points_loaded", False)
    monkeypatch.setattr(strategies, "_registered", dict(strategies._registered))
    monkeypatch.setattr(strategies, "_failed", {})
    monkeypatch.setattr(strategies, "_report", strategies._log_warning)

    def installed(*points: tuple[str, str]) -> None:
        found = importlib.metadata.EntryPoints(
            importlib.metadata.EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in points
        )

        def entry_points(**selection):
            return found.select(**selection)

        monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)

    yield installed
    for module in MODULES:
        sys.modules.pop(module, None)


def plugin_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == strategies.__name__ and r.levelno == logging.WARNING]


def test_a_plugin_that_raises_at_import_is_one_warning_naming_it_and_the_error(install, caplog):
    install(
        ("keep", "piplugin_good:keep"),
        ("broken", "piplugin_broken:run"),
        ("missing", "piplugin_not_installed:run"),
    )
    with caplog.at_level(logging.WARNING, logger=strategies.__name__):
        known = known_strategies()
        known_strategies()  # read once: warned once
    assert "keep" in known and "broken" not in known and "missing" not in known
    assert plugin_warnings(caplog) == [
        "strategy plugin 'broken' failed to load (entry point broken = piplugin_broken:run: "
        "RuntimeError: database not configured); it is not available",
        "strategy plugin 'missing' failed to load (entry point missing = piplugin_not_installed:run: "
        "ModuleNotFoundError: No module named 'piplugin_not_installed'); it is not available",
    ]
    assert "Traceback" not in caplog.text
    assert plugin_failures() == {
        "broken": "entry point broken = piplugin_broken:run: RuntimeError: database not configured",
        "missing": "entry point missing = piplugin_not_installed:run: "
        "ModuleNotFoundError: No module named 'piplugin_not_installed'",
    }


def test_the_warning_is_one_line_and_a_non_callable_entry_point_fails_too(install, caplog):
    install(("lines", "piplugin_lines:run"), ("value", "piplugin_value:VALUE"))
    with caplog.at_level(logging.WARNING, logger=strategies.__name__):
        known_strategies()
    lines, value = plugin_warnings(caplog)
    assert "\n" not in lines and "ValueError: first line second line" in lines
    assert "entry point value = piplugin_value:VALUE: TypeError: int object is not callable" in value


def test_naming_a_plugin_that_failed_says_it_failed_and_why(install):
    install(("broken", "piplugin_broken:run"))
    with pytest.raises(PluginLoadFailed) as info:
        parse_spec("shorten_tools,broken")
    assert isinstance(info.value, UnknownStrategy) and info.value.name == "broken"  # caught where unknown names are
    assert str(info.value) == (
        "prompt strategy 'broken' is a plugin that failed to load "
        "(entry point broken = piplugin_broken:run: RuntimeError: database not configured)"
    )


def test_a_chat_naming_a_plugin_that_failed_gets_the_reason_in_scouts_error(install):
    install(("broken", "piplugin_broken:run"))
    prompt = plan(rounds(2, 10), ["broken"])  # the chat's own list: not validated, scout-ai raises
    assert prompt.error is not None
    assert "failed to load (entry point broken = piplugin_broken:run: RuntimeError" in prompt.error.describe()


def test_a_plugin_registered_in_code_is_not_reported_as_failed(install):
    install(("broken", "piplugin_broken:run"))
    known_strategies()
    strategies.register_strategy("broken", lambda messages: messages)
    assert plugin_failures() == {}
    assert callable(strategies.lookup("broken"))


def test_the_cli_warns_in_one_line_and_strategies_naming_it_fails_with_the_reason(install):
    install(("broken", "piplugin_broken:run"), ("keep", "piplugin_good:keep"))
    result = run_cli("prepare", demo_chat_path(), "--strategies", "broken")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "prompt-inspector: warning: strategy plugin 'broken' failed to load (entry point broken = "
        "piplugin_broken:run: RuntimeError: database not configured); it is not available",
        "prompt-inspector: error: prompt strategy 'broken' is a plugin that failed to load (entry point "
        "broken = piplugin_broken:run: RuntimeError: database not configured)",
    ]


def test_the_cli_runs_a_working_plugin_beside_a_broken_one_and_puts_the_reporter_back(install, caplog):
    install(("broken", "piplugin_broken:run"), ("keep", "piplugin_good:keep"))
    result = run_cli("prepare", demo_chat_path(), "--strategies", "keep,shorten_tools")
    assert result.returncode == 0, result.stderr
    assert "warning: strategy plugin 'broken' failed to load" in result.stderr
    assert "Traceback" not in result.stderr
    # main ran in this process: a plugin failing after it is logging's again, not the CLI's stderr line
    strategies._entry_points_loaded = False
    with caplog.at_level(logging.WARNING, logger=strategies.__name__):
        known_strategies()
    assert len(plugin_warnings(caplog)) == 1

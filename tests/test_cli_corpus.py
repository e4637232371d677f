"""`prompt-inspector corpus`: the JSON contract, the engines agree, gates, bad input."""

from __future__ import annotations

import json
import os
import sys

import agentgen
import pytest
from cli_runner import run_cli

from inspector.core.calls.history import ChatHistory
from inspector.core.setup import Setup

ENV = {"PATH": os.environ.get("PATH", "")}
GRID = ["--vary", "max_tool_chars=6000:30000:12000", "--vary", "full_tool_outputs=1:5:4"]


def corpus(*args, **kw):
    return run_cli("corpus", *args, "--no-scout-config", environ=ENV, **kw)


def _corpus_dir(tmp_path, n=4):
    folder = tmp_path / "runs"
    folder.mkdir()
    for seed in range(n):
        text = agentgen.scout_chat(seed, calls=16) if seed % 2 else agentgen.json_chat(seed, calls=16)
        (folder / f"run{seed}.{'chat' if seed % 2 else 'json'}").write_text(text)
    return folder


def test_json_contract_and_values(tmp_path):
    folder = _corpus_dir(tmp_path)
    r = corpus(folder, *GRID, "--probe", agentgen.FACT, "--format", "json", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert len(data["settings"]) == 6
    first = data["settings"][0]
    assert set(first) >= {"values", "chats", "calls", "chars", "tokens", "refetches", "losses", "errors", "pareto"}
    assert list(first["values"]) == [
        "full_tool_calls",
        "full_tool_outputs",
        "max_tool_calls",
        "max_tool_outputs",
        "max_tool_chars",
    ]
    assert [(s["values"]["max_tool_chars"], s["values"]["full_tool_outputs"]) for s in data["settings"]] == [
        (6000, 1),
        (6000, 5),
        (18000, 1),
        (18000, 5),
        (30000, 1),
        (30000, 5),
    ]
    assert [c["path"] for c in data["chats"]] == sorted(str(p) for p in folder.iterdir())
    for chat in data["chats"]:
        assert set(chat) == {"path", "calls", "error", "per_setting"} and chat["error"] is None
        assert [set(p) for p in chat["per_setting"]] == [{"chars", "tokens", "refetches", "losses"}] * 6
        # chars per setting = the calls command's chars summed under that setting
        for setting, per in zip(data["settings"], chat["per_setting"]):
            sets = {k: str(v) for k, v in setting["values"].items()}
            history = ChatHistory(chat["path"], Setup.of(env={}, config_files=[], overrides=sets))
            assert per["chars"] == sum(history.call_counts(n).chars_after for n in range(1, len(history) + 1))
    for k, setting in enumerate(data["settings"]):
        assert setting["refetches"] == sum(c["per_setting"][k]["refetches"] for c in data["chats"])
        assert setting["chars"] == sum(c["per_setting"][k]["chars"] for c in data["chats"])
    assert any(s["refetches"] for s in data["settings"]) and any(s["pareto"] for s in data["settings"])


def test_pool_and_one_process_print_the_same(tmp_path):
    folder = _corpus_dir(tmp_path)
    one = corpus(folder, *GRID, "--format", "json", "--jobs", "1")
    pool = corpus(folder, *GRID, "--format", "json", "--jobs", "3")
    assert one.returncode == pool.returncode == 0
    assert one.stdout == pool.stdout


def test_dask_local_cluster_prints_the_same(tmp_path):
    pytest.importorskip("dask.distributed")
    folder = _corpus_dir(tmp_path, 2)
    one = corpus(folder, *GRID[:2], "--format", "json", "--jobs", "1")
    dask = corpus(folder, *GRID[:2], "--format", "json", "--jobs", "1", "--engine", "dask")
    assert dask.returncode == 0, dask.stderr
    assert one.stdout == dask.stdout


def test_dask_missing_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails
    r = corpus(_corpus_dir(tmp_path, 1), "--engine", "dask", "--jobs", "1")
    assert r.returncode == 2 and "pip install 'prompt-inspector[distributed]'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_gate_exit_codes(tmp_path):
    folder = _corpus_dir(tmp_path, 2)
    sets = ["--set", "max_tool_chars=6000", "--jobs", "1"]
    data = json.loads(corpus(folder, *sets, "--format", "json").stdout)
    refetches = data["settings"][0]["refetches"]
    assert refetches > 0
    assert corpus(folder, *sets, "--gate", f"refetches<={refetches}").returncode == 0
    broken = corpus(folder, *sets, "--gate", f"refetches<={refetches - 1}", "--gate", "chars<=1")
    assert broken.returncode == 1 and len(broken.stderr.strip().splitlines()) == 2
    assert corpus(folder, *sets, "--gate", "speed<=1").returncode == 2
    assert corpus(folder, *sets, "--gate", "refetches=1").returncode == 2


def test_bad_input_is_reported_once_and_the_rest_scored(tmp_path):
    folder = _corpus_dir(tmp_path, 2)
    (folder / "notes.txt").write_text("not a chat at all")
    os.mkfifo(folder / "pipe.chat")
    with open(folder / "huge.chat", "wb") as f:  # sparse: over the 1 GiB chat limit without the disk space
        f.truncate(1024**3 + 1)
    locked = folder / "locked.chat"
    locked.write_text("user:\n\nhi\n")
    locked.chmod(0)
    raising = [{"role": "user", "content": "go"}, {"role": "function_call", "content": "not json"}]
    raising += [{"role": "function_call_output", "content": "{}"}, {"role": "assistant", "content": "ok"}]
    (folder / "raises.json").write_text(json.dumps(raising))
    r = corpus(folder, "--format", "json", "--jobs", "2")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    errors = {os.path.basename(c["path"]): c["error"] for c in data["chats"] if c["error"]}
    skipped = {os.path.basename(s["path"]): s["reason"] for s in data["skipped"]}
    assert set(skipped) == {"notes.txt"}
    expected = {"pipe.chat", "huge.chat", "raises.json"} | ({"locked.chat"} if os.geteuid() != 0 else set())
    assert set(errors) == expected, errors
    assert "FIFO" in errors["pipe.chat"] and "limit" in errors["huge.chat"] and "raises" in errors["raises.json"]
    assert data["settings"][0]["errors"] == len(expected)
    assert data["settings"][0]["chats"] == 2 + 1 + (1 if os.geteuid() == 0 else 0)  # raises.json is read
    table = corpus(folder, "--jobs", "1")
    assert table.returncode == 0
    for name in [*expected, "notes.txt"]:
        assert table.stdout.count(name) == 1, name


def test_nothing_readable_exits_2(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "notes.txt").write_text("x")
    assert corpus(folder).returncode == 2
    (folder / "bad.json").write_text("{not json")
    r = corpus(folder, "--jobs", "1")
    assert r.returncode == 2 and "nothing could be read" in r.stderr


def test_env_and_scout_config_print_the_current_setting(tmp_path):
    folder = _corpus_dir(tmp_path, 1)
    r = corpus(folder, "--set", "max_tool_chars=7000", "--format", "env", "--jobs", "1")
    assert r.returncode == 0 and "MAX_TOOL_CHARS=7000\n" in r.stdout
    t = run_cli(
        "thresholds", "--no-scout-config", "--set", "max_tool_chars=7000", "--format", "scout-config", environ=ENV
    )
    c = corpus(folder, "--set", "max_tool_chars=7000", "--format", "scout-config", "--jobs", "1")
    assert c.stdout == t.stdout


def test_csv_and_markdown(tmp_path):
    folder = _corpus_dir(tmp_path, 2)
    csv = corpus(folder, *GRID[:2], "--format", "csv", "--jobs", "1").stdout.splitlines()
    assert csv[0].startswith("setting,full_tool_calls") and len(csv) == 4
    md = corpus(folder, *GRID[:2], "--format", "markdown", "--per-chat", "--jobs", "1").stdout
    assert "| # | max_tool_chars |" in md


@pytest.mark.slow
def test_dask_worker_processes_print_the_same(tmp_path):
    pytest.importorskip("dask.distributed")
    folder = _corpus_dir(tmp_path, 3)
    one = corpus(folder, *GRID[:2], "--format", "json", "--jobs", "1")
    dask = corpus(folder, *GRID[:2], "--format", "json", "--jobs", "2", "--engine", "dask")
    assert dask.returncode == 0, dask.stderr
    assert one.stdout == dask.stdout

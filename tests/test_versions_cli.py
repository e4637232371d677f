"""--scout-version on the command line, the settings each version's strategies read, and the way back to scout-ai."""

import json

import pytest
from cli_runner import run_cli

BASE = {"PATH": "/usr/bin:/bin"}
SETS = [
    "--set",
    "epoch_size=7",
    "--set",
    "epoch_increment_compacted_growth_ratio=1.5",
    "--set",
    "max_tool_chars=5000",
    "--set",
    "epoch_increment_max_size=33",
]


def _json(*args, env=None):
    r = run_cli("thresholds", "--no-scout-config", "--format", "json", *args, environ={**BASE, **(env or {})})
    assert r.returncode == 0, r.stderr
    return {k: v["value"] for k, v in json.loads(r.stdout).items()}


@pytest.mark.parametrize("strategies", ["shorten_tools", "shorten_tools_epoch", "shorten_tools_epoch_increment"])
def test_env_lines_read_back_to_the_same_values(strategies):
    r = run_cli("thresholds", "--no-scout-config", "--strategies", strategies, "--format", "env", *SETS, environ=BASE)
    assert r.returncode == 0 and r.stderr == ""
    env = dict(line.split("=", 1) for line in r.stdout.splitlines())
    assert all(k == k.upper() for k in env)
    assert _json("--strategies", strategies, env=env) == _json("--strategies", strategies, *SETS)


@pytest.mark.parametrize("strategies", ["shorten_tools", "shorten_tools_epoch", "shorten_tools_epoch_increment"])
def test_scout_config_lines_read_back_to_the_same_values(strategies, tmp_path):
    r = run_cli(
        "thresholds", "--no-scout-config", "--strategies", strategies, "--format", "scout-config", *SETS, environ=BASE
    )
    assert r.returncode == 0 and r.stderr == ""
    lines = r.stdout.splitlines()
    # a strategy list the version reads from the config and that is not its default is written too
    assert all(len(line.split()) == 3 for line in lines)
    assert all(line.endswith(" prompt") or line.startswith("prompt_strategies ") for line in lines)
    config = tmp_path / "config"
    config.write_text(r.stdout)
    back = run_cli("thresholds", "--scout-config", config, "--strategies", strategies, "--format", "json", environ=BASE)
    values = {k: v["value"] for k, v in json.loads(back.stdout).items()}
    assert values == _json("--strategies", strategies, *SETS)
    sources = {k: v["source"] for k, v in json.loads(back.stdout).items()}
    # a max_tool_outputs left to follow max_tool_calls is not written: it reads back following it
    assert set(sources.values()) <= {"config", "follows max_tool_calls"} and "config" in sources.values()


def test_the_settings_listed_are_those_of_the_strategies_in_force():
    assert list(_json()) == [
        "full_tool_calls",
        "full_tool_outputs",
        "max_tool_calls",
        "max_tool_outputs",
        "max_tool_chars",
    ]
    assert list(_json("--scout-version", "1.2.6")) == [
        "epoch_tool_call_threshold",
        "epoch_full_tool_calls",
        "epoch_compacted_tool_calls",
        "epoch_size",
    ]
    assert len(_json("--scout-version", "2.1")) == 10
    assert _json("--scout-version", "2.1", env={"PROMPT_STRATEGY": "shorten_tools"}) == _json()
    assert _json("--strategies", "shorten_tools_epoch_increment")["epoch_increment_compacted_growth_ratio"] == 2.0
    table = run_cli("thresholds", "--no-scout-config", "--scout-version", "2.1", environ=BASE).stdout
    assert table.splitlines()[0] == "strategies shorten_tools_epoch_increment,inbox (scout-ai 2.1)"


def test_ratio_is_read_with_to_f_and_warned():
    r = run_cli(
        "thresholds",
        "--no-scout-config",
        "--strategies",
        "shorten_tools_epoch_increment",
        "--format",
        "json",
        environ={**BASE, "EPOCH_INCREMENT_COMPACTED_GROWTH_RATIO": "1.5x", "EPOCH_SIZE": "9abc"},
    )
    data = json.loads(r.stdout)
    assert data["epoch_increment_compacted_growth_ratio"]["value"] == 1.5 and data["epoch_size"]["value"] == 9
    assert "EPOCH_SIZE='9abc' from the environment is read by scout-ai as 9" in r.stderr
    assert "'1.5x' from the environment is read by scout-ai as 1.5" in r.stderr


def test_bad_input_is_one_line_exit_2(tmp_path):
    for args, fragment in (
        (["--scout-version", "9"], "unknown scout-ai version '9'; known: seed, 1.2.6, 2.1"),
        (["--set", "epoch_sizes=3"], "unknown setting 'epoch_sizes'"),
        (["--set", "epoch_size=x"], "--set epoch_size expects an integer"),
        (["--set", "epoch_increment_compacted_growth_ratio=fast"], "expects a number"),
        (["--strategies", "magic"], "unknown prompt strategy 'magic'"),
    ):
        r = run_cli("thresholds", "--no-scout-config", *args, environ=BASE)
        assert r.returncode == 2 and r.stdout == "", args
        assert len(r.stderr.splitlines()) == 1 and fragment in r.stderr, r.stderr


def test_a_strategy_the_version_lacks_is_what_scout_ai_raises(tmp_path):
    chat = tmp_path / "c.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    r = run_cli(
        "prepare",
        chat,
        "--no-scout-config",
        "--strategies",
        "shorten_tools_epoch",
        "--scout-version",
        "seed",
        environ=BASE,
    )
    assert r.returncode == 3
    assert "NoMethodError" in r.stderr and "try --scout-version 2.1" in r.stderr and "1.2.6, 2.1" in r.stderr
    r = run_cli("prepare", chat, "--no-scout-config", "--strategies", "shorten_tools_epoch_increment", environ=BASE)
    assert r.returncode == 0 and json.loads(r.stdout) == [{"role": "user", "content": "hi"}]


def _epoch_chat(tmp_path, pairs=30):
    items = [{"role": "user", "content": "go"}]
    for i in range(pairs):
        items.append(
            {"role": "function_call", "content": json.dumps({"name": "ls", "arguments": {"p": f"{i}"}, "id": f"c{i}"})}
        )
        items.append(
            {"role": "function_call_output", "content": json.dumps({"name": "ls", "content": "o" * 500, "id": f"c{i}"})}
        )
    path = tmp_path / "e.json"
    path.write_text(json.dumps(items))
    return path


def test_sweep_and_diff_vary_epoch_settings(tmp_path):
    chat = _epoch_chat(tmp_path)
    small = [
        "--set",
        "epoch_tool_call_threshold=5",
        "--set",
        "epoch_full_tool_calls=2",
        "--set",
        "epoch_compacted_tool_calls=4",
    ]
    r = run_cli(
        "sweep",
        chat,
        "--strategies",
        "shorten_tools_epoch",
        "--vary",
        "epoch_size=1:5:2",
        "--format",
        "json",
        "--no-scout-config",
        *small,
        environ=BASE,
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    # 30 outputs, threshold 5: pinned at 29 for sizes 1 and 3 (1 new + 2 full pairs), at 25 for size 5 (5 + 2);
    # 4 outputs compacted each time (the calls have nothing long enough to cut)
    assert [(row["value"], row["truncated"], row["dropped"]) for row in rows] == [(1, 4, 46), (3, 4, 46), (5, 4, 38)]
    # messages sent, the compaction notice included, as explain counts them
    assert [row["messages"] for row in rows] == [16, 16, 24]
    for row in rows:
        r = run_cli(
            "explain",
            chat,
            "--strategies",
            "shorten_tools_epoch",
            "--set",
            f"epoch_size={row['value']}",
            "--format",
            "json",
            "--no-scout-config",
            *small,
            environ=BASE,
        )
        assert json.loads(r.stdout)["summary"]["visible_messages"] == row["messages"]
    r = run_cli(
        "diff",
        chat,
        "--strategies",
        "shorten_tools_epoch_increment",
        "--a",
        "epoch_size=1",
        "--b",
        "epoch_size=2",
        "--format",
        "json",
        "--no-scout-config",
        *small,
        environ=BASE,
    )
    assert r.returncode == 0, r.stderr
    assert (
        "epoch_size=1"
        in run_cli(
            "diff",
            chat,
            "--strategies",
            "shorten_tools_epoch_increment",
            "--a",
            "epoch_size=1",
            "--b",
            "epoch_size=2",
            "--no-scout-config",
            *small,
            environ=BASE,
        ).stdout
    )


def test_sweep_and_diff_take_the_growth_ratio_as_a_decimal_like_set(tmp_path):
    chat = _epoch_chat(tmp_path)
    key = "epoch_increment_compacted_growth_ratio"
    common = ["--strategies", "shorten_tools_epoch_increment", "--no-scout-config"]
    r = run_cli("sweep", chat, "--vary", f"{key}=0.5:2:0.5", "--format", "json", *common, environ=BASE)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row["value"] for row in rows] == [0.5, 1.0, 1.5, 2.0]
    for row in rows:  # each row is what --set gives at that value
        one = run_cli(
            "sweep", chat, "--vary", f"{key}={row['value']}:{row['value']}", "--format", "json", *common, environ=BASE
        )
        explain = json.loads(
            run_cli("explain", chat, "--set", f"{key}={row['value']}", "--format", "json", *common, environ=BASE).stdout
        )
        assert json.loads(one.stdout) == [row]
        assert row["truncated"] == explain["summary"]["tiers"]["truncated"]
    r = run_cli("diff", chat, "--a", f"{key}=0.5", "--b", f"{key}=3.5", *common, environ=BASE)
    assert r.returncode == 0, r.stderr
    assert f"A: {key}=0.5 " in r.stdout and f"B: {key}=3.5 " in r.stdout
    assert "same setting" not in r.stderr  # 0.5 and 3.5 are two settings, even when they plan alike
    r = run_cli("sweep", chat, "--vary", f"{key}=x:2", *common, environ=BASE)
    assert r.returncode == 2 and r.stderr.strip().endswith(f"error: {key} needs a number, got 'x'")
    r = run_cli("sweep", chat, "--vary", "max_tool_chars=1.5:2", *common, environ=BASE)
    assert r.returncode == 2 and "max_tool_chars needs an integer, got '1.5'" in r.stderr


def test_settings_written_back_carry_the_strategy_line_where_the_version_reads_it():
    r = run_cli(
        "thresholds",
        "--no-scout-config",
        "--scout-version",
        "2.1",
        "--strategies",
        "shorten_tools",
        "--format",
        "env",
        environ=BASE,
    )
    assert r.stdout.splitlines()[-1] == "PROMPT_STRATEGY=shorten_tools"
    assert "MAX_TOOL_OUTPUTS" not in r.stdout  # it follows max_tool_calls: a line would pin it
    r = run_cli(
        "thresholds",
        "--no-scout-config",
        "--scout-version",
        "2.1",
        "--strategies",
        "shorten_tools",
        "--format",
        "scout-config",
        environ=BASE,
    )
    assert r.stdout.splitlines()[-1] == "prompt_strategies shorten_tools chat"
    # 2.1's own default, and a version that reads the list from the chat only: no line
    default = run_cli(
        "thresholds",
        "--no-scout-config",
        "--scout-version",
        "2.1",
        "--strategies",
        "shorten_tools_epoch_increment,inbox",
        "--format",
        "env",
        environ=BASE,
    )
    seed = run_cli(
        "thresholds",
        "--no-scout-config",
        "--scout-version",
        "1.2.6",
        "--strategies",
        "shorten_tools",
        "--format",
        "env",
        environ=BASE,
    )
    assert "PROMPT_STRATEGY" not in default.stdout and "PROMPT_STRATEGY" not in seed.stdout

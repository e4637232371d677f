"""The other frameworks' policies on a large chat: the first plan, a re-plan, a sweep of 100 values.

Run: python benchmarks/bench_policies.py [MESSAGES] [PROFILE] [POLICY...]   (defaults: 20000 ascii, every policy;
profiles ascii, mixed)
Targets (issue 23): a policy re-plan on a 20,000-message chat within 50 ms after the first plan (the token
counts of unchanged messages are cached); a threshold sweep of 100 values within 5 s.
Printed per policy: the chat read into the Chat Completions shape (once per chat), the first plan (counts
every message), a re-plan with one setting changed, and 100 values of its main numeric setting.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from chats import write

from inspector.core.inspection import open_inspection
from inspector.core.scout.prepare import Prompt
from inspector.core.setup import Setup

# (policy, settings, the setting varied by the re-plan and the sweep, its 100 values from, step)
CASES = [
    ("langchain.clear_tool_uses", {"trigger": "100000"}, "keep", 1, 50),
    ("langchain.trim_messages", {"max_tokens": "200000"}, "max_tokens", 100_000, 100_000),
    ("openai.tool_output_trimmer", {"recent_turns": "1"}, "max_output_chars", 100, 100),
    ("anthropic.clear_tool_uses", {"trigger": "100000"}, "keep", 1, 50),
    ("openhands.observation_masking", {}, "attention_window", 10, 100),
    ("openhands.recent_events", {}, "max_events", 100, 100),
    ("openhands.amortized_forgetting", {}, "max_size", 100, 100),
    # stateful: replayed before every assistant message; its first plan counts every message with o200k_base
    ("inspect.compaction_edit", {"threshold": "1000000"}, "keep_tool_uses", 10, 10),
    ("inspect.compaction_trim", {"threshold": "100000"}, "threshold", 100_000, 10_000),
]


def planned(prompt: Prompt) -> None:
    """What a re-plan shows: every row's tier (the app's list) and the totals (its header, a sweep's row)."""
    prompt.decision_columns()
    prompt.totals()


def main() -> None:
    messages = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    profile = sys.argv[2] if len(sys.argv) > 2 else "ascii"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chat.json"
        write(path, messages, profile)
        t = time.perf_counter()
        base = open_inspection(path, Setup.of(config_files=[]))
        read = time.perf_counter() - t
        t = time.perf_counter()
        base.conversation()
        shape = time.perf_counter() - t
        print(f"{messages:,} messages ({profile}, {path.stat().st_size / 1e6:.1f} MB): read {read:.2f} s; "
              f"Chat Completions shape {shape * 1000:.0f} ms (once per chat)")  # fmt: skip
        print(
            f"{'policy':32} {'first plan':>11} {'re-plan':>9} {'100 values':>11}  target: re-plan <= 50 ms, sweep <= 5 s"
        )
        only = set(sys.argv[3:])
        for policy, settings, key, start, step in CASES:
            if only and policy not in only:
                continue
            inspection = base.with_policy(policy, settings)
            t = time.perf_counter()
            planned(inspection.prompt())
            first = time.perf_counter() - t
            changed = inspection.policy
            assert changed is not None
            t = time.perf_counter()
            planned(inspection.policy_prompt(changed.with_value(key, start + step)))
            again = time.perf_counter() - t
            t = time.perf_counter()
            for k in range(100):
                planned(inspection.policy_prompt(changed.with_value(key, start + k * step)))
            sweep = time.perf_counter() - t
            print(f"{policy:32} {first * 1000:>9.0f}ms {again * 1000:>7.0f}ms {sweep:>10.2f}s")


if __name__ == "__main__":
    main()

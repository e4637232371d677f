"""Regenerate the golden cases from the Ruby reference oracle (developers only; tests never need Ruby).

    python tests/golden/make_golden.py /path/to/prompt_oracle.rb

Each case is a generated chat (every message tagged with "_i"), the environment
thresholds and strategy list it runs under, and the oracle's output (or the fact
that it raised).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import chatgen  # noqa: E402

ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")


def main(oracle: str, count: int = 40) -> None:
    for old in HERE.glob("case_*.json"):
        old.unlink()
    for seed in range(count):
        rng = random.Random(1000 + seed)
        messages = chatgen.chat(500 + seed, messages=rng.randint(3, 50), scale=rng.choice([300, 700, 1200]),
                                traps=seed % 6 == 5)
        for i, message in enumerate(messages):
            message["_i"] = i
        env = chatgen.thresholds(rng)
        if seed % 3 == 0:
            env.setdefault("MAX_TOOL_CHARS", str(rng.choice([300, 1500, 4000])))
        if seed % 2 == 0:
            env["MAX_TOOL_OUTPUTS" if seed % 4 else "MAX_TOOL_CALLS"] = str(rng.randint(0, 8))
        strategies = rng.choice([None] * 6 + ["none", "shorten_tools,shorten_tools", "none,shorten_tools"])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
            json.dump(messages, handle, ensure_ascii=False)
            path = handle.name
        clean = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
        run = subprocess.run(["ruby", oracle, path, *([strategies] if strategies else [])],
                             capture_output=True, env={**clean, **env})
        os.unlink(path)
        case = {"seed": seed, "env": env, "strategies": strategies, "input": messages,
                "raises": run.returncode != 0,
                "expected": run.stdout.decode("utf-8") if run.returncode == 0 else None}
        (HERE / f"case_{seed:02d}.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])

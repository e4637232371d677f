"""Golden cases for every scout-ai version's prompt layer, from scout-ai's own Ruby (developers only).

    python tests/golden_versions/make_golden.py RUBY_DIR [--check N]

RUBY_DIR holds ``harness.rb`` and scout-ai's files (``v126/``: 733fc62's prompt.rb, shorten_tools.rb,
shorten_tools_epoch.rb; ``v21/``: de79709's prompt.rb and inbox.rb, 2bf609e's
shorten_tools_epoch_increment.rb) and ``seed.rb`` (the reference oracle of the listing). They are not in
this repository: scout-ai's code stays out of it. ``--check N`` runs N random chats per version and
strategy against Ruby and prints the mismatches without writing; otherwise the goldens are rewritten
(tests/golden_versions/<version>.json.gz; the tests need only those).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

from versions_case import run_case  # noqa: E402

KEYS = (
    "FULL_TOOL_CALLS",
    "FULL_TOOL_OUTPUTS",
    "MAX_TOOL_CALLS",
    "MAX_TOOL_OUTPUTS",
    "MAX_TOOL_CHARS",
    "EPOCH_TOOL_CALL_THRESHOLD",
    "EPOCH_FULL_TOOL_CALLS",
    "EPOCH_COMPACTED_TOOL_CALLS",
    "EPOCH_SIZE",
    "EPOCH_INCREMENT_EPOCHS_PER_INCREASE",
    "EPOCH_INCREMENT_SIZE_INCREASE",
    "EPOCH_INCREMENT_REPEAT_INCREASE",
    "EPOCH_INCREMENT_MAX_SIZE",
    "EPOCH_INCREMENT_COMPACTED_GROWTH_RATIO",
    "EPOCH_INCREMENT_MAX_COMPACTED_TOOL_CALLS",
    "PROMPT_STRATEGY",
)
PLAN = {  # version -> strategy lists tried (None: the version's default)
    "seed": [None, "shorten_tools"],
    "1.2.6": [None, "shorten_tools", "shorten_tools_epoch"],
    "2.1": [
        None,
        "shorten_tools",
        "shorten_tools_epoch",
        "shorten_tools_epoch_increment",
        "shorten_tools_epoch_increment,none",
    ],
}
TOOLS = ["ls", "read", "grep", "sql"]
POOL = 'abcdefghij klmnop\n"\\é中😀\u0001#{'


# slices of one fixed text: every character class still occurs, and the goldens compress well
_BASE = "".join(random.Random(0).choice(POOL) for _ in range(1500))


def text(rng, n):
    start = rng.randrange(len(_BASE))
    return (_BASE[start:] + _BASE)[:n]


def length(rng):
    return rng.choice([0, 5, 30, 60, 199, 200, 201, 399, 400, 401, 450, 700])


def chat(rng, pairs: int, traps: bool) -> list[dict]:
    out = [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]
    earlier: list[tuple[str, dict]] = []
    for n in range(pairs):
        cid = f"c{n}"
        if earlier and rng.random() < 0.2:
            name, args = rng.choice(earlier)  # a repeat: same name and arguments, new id
        else:
            name = rng.choice(TOOLS)
            args = {
                f"a{i}": (text(rng, length(rng)) if rng.random() < 0.8 else rng.choice([1, 2.5, None, [1], {"x": 1}]))
                for i in range(rng.randint(0, 2))
            }
            earlier.append((name, args))
        call = {"name": name, "arguments": args, "id": cid}
        if traps and rng.random() < 0.03:
            call["arguments"] = text(rng, rng.choice([10, 300]))  # the old string form
        out.append({"role": "function_call", "content": json.dumps(call, ensure_ascii=False)})
        body = {"name": name, "content": text(rng, length(rng)), "id": cid}
        if rng.random() < 0.25:
            body["step"] = rng.choice(["Agent/job_1", 'Tool/run "x"', 7, None, False, {"j": 1}])
        if rng.random() < 0.05:
            body["content"] = rng.choice([{"k": "v"}, [1, 2], 12, None, True])
        content = json.dumps(body, ensure_ascii=False)
        if traps and rng.random() < 0.04:
            content = rng.choice(["not json", "", "[1,2]", '"str"', "3", "null", None])
        out.append({"role": "function_call_output", "content": content})
        if rng.random() < 0.05:
            out.append({"role": rng.choice(["user", "assistant"]), "content": text(rng, 20)})
    for i, message in enumerate(out):
        message["_i"] = i
    return out


def settings(rng) -> dict[str, str]:
    env: dict[str, str] = {}
    pick = lambda k, *vals: env.__setitem__(k, str(rng.choice(vals)))  # noqa: E731
    pick("EPOCH_TOOL_CALL_THRESHOLD", 0, 3, 10, 25, 50, "12abc")
    pick("EPOCH_FULL_TOOL_CALLS", 0, 2, 5, 10, 20)
    pick("EPOCH_COMPACTED_TOOL_CALLS", 0, 5, 15, 40, 80)
    pick("EPOCH_SIZE", 1, 3, 5, 10, 20, 0, -2)
    if rng.random() < 0.8:
        pick("EPOCH_INCREMENT_EPOCHS_PER_INCREASE", 0, 1, 2, 3)
        pick("EPOCH_INCREMENT_SIZE_INCREASE", 0, 1, 3, 10, -4)
        pick("EPOCH_INCREMENT_REPEAT_INCREASE", 0, 1, 3, 10)
        pick("EPOCH_INCREMENT_MAX_SIZE", 0, 5, 12, 60)
        pick("EPOCH_INCREMENT_COMPACTED_GROWTH_RATIO", 0, 0.5, 1.5, 2.0, 2.5, "-1", "abc", "1e400")
        pick("EPOCH_INCREMENT_MAX_COMPACTED_TOOL_CALLS", 0, 10, 40, 160)
    if rng.random() < 0.5:
        pick("MAX_TOOL_CHARS", 0, 500, 3000, 20000)
        pick("FULL_TOOL_OUTPUTS", 0, 3, 10)
        pick("MAX_TOOL_CALLS", 2, 10, 40)
    return env


def ruby(ruby_dir: Path, case: dict) -> tuple[str | None, str | None]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(case["input"], handle, ensure_ascii=False)
        path = handle.name
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    env.update(case["env"])
    if case["version"] == "seed":
        args = ["ruby", str(ruby_dir / "seed.rb"), path, *([case["strategies"]] if case["strategies"] else [])]
    else:
        folder = "v126" if case["version"] == "1.2.6" else "v21"
        args = ["ruby", str(ruby_dir / "harness.rb"), folder, path, case["strategies"] or ""]
    run = subprocess.run(args, capture_output=True, env=env, cwd=ruby_dir)
    os.unlink(path)
    if run.returncode != 0:
        err = run.stderr.decode("utf-8", "replace")
        first = err.split("RAISE ", 1)[1].split(": ", 1)[0] if "RAISE " in err else err.split("(")[-1].split(")")[0]
        return None, first.strip()
    return run.stdout.decode("utf-8"), None


def cases(count: int, seed0: int):
    for version, lists in PLAN.items():
        for strategies in lists:
            for n in range(count):
                rng = random.Random(f"{version}/{strategies}/{seed0 + n}")
                pairs = rng.choice([5, 30, 80, 150, 250])
                yield {
                    "version": version,
                    "strategies": strategies,
                    "env": settings(rng),
                    "input": chat(rng, pairs, traps=n % 4 == 3),
                }


def main() -> None:
    ruby_dir = Path(sys.argv[1]).resolve()
    check = "--check" in sys.argv
    count = int(sys.argv[sys.argv.index("--check") + 1]) if check else 8
    results: dict[str, list] = {}
    tally: dict[tuple, list[int]] = {}
    for case in cases(count, 5000 if check else 0):
        expected, raised = ruby(ruby_dir, case)
        got, got_raised = run_case(case)
        key = (case["version"], case["strategies"])
        counts = tally.setdefault(key, [0, 0, 0, 0, 0])
        counts[0] += 1
        counts[2] += raised is not None
        counts[3] += "Context Management" in (expected or "")  # several epochs passed: something compacted
        counts[4] += "Full output found in job" in (expected or "")
        if (got, got_raised) != (expected, raised):
            counts[1] += 1
            print(
                "MISMATCH",
                key,
                case["env"],
                "ruby:",
                raised or (expected or "")[:80],
                "python:",
                got_raised or (got or "")[:80],
                file=sys.stderr,
            )
        case["expected"], case["raises"] = expected, raised
        results.setdefault(case["version"], []).append(case)
    for (version, strategies), (n, bad, raised, notice, step) in tally.items():
        print(
            f"{version:6} {strategies or '(default)':36} chats {n:4}  mismatches {bad}  ruby raised {raised}"
            f"  compaction notices {notice}  step lines {step}"
        )
    if not check:
        for version, found in results.items():
            target = HERE / f"{version}.json.gz"
            target.write_bytes(gzip.compress(json.dumps(found, ensure_ascii=False).encode("utf-8"), mtime=0))


if __name__ == "__main__":
    main()

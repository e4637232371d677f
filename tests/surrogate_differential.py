"""Differential check of escaped surrogates and invalid UTF-8 against the Ruby oracle (needs Ruby; not a test).

    python tests/surrogate_differential.py /work/shared/reference/prompt_oracle.rb [COUNT] [FIRST_SEED]

Each case is a generated chat (tests/chatgen.py) with traps put in random strings: the chat file's own
strings and the strings inside a tool call's/output's JSON (kept, cut or dropped by the thresholds), at
the start, middle or end of the string. `prompt-inspector prepare` must print the oracle's bytes, or exit 3
where the oracle raises inside shorten_tools / JSON.generate, or 2 where it cannot read the file.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import chatgen  # noqa: E402

ENV_KEYS = ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")
# escapes as they stand in JSON text (doubled when inside a tool message's JSON, itself a JSON string)
ESCAPES = [
    r"\ud800",
    r"\uDBFF",
    r"\udc00",
    r"\uDFFF",
    r"\ud800\u0041",
    r"\ud800\udc00",
    r"\ud83d\ude00",
    r"\ud800\ud800",
    r"\udc00\ud800",
    r"\ud800\n",
    r"\ud800\\",
    r"\ud800\"",
    r"\ud800\u00e9",
    r"\ud800é",
]
RAW = [b"\xff", b"\xed\xa0\x80", b"\xc3", b"\xe2\x82", b"\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xf0\x9f\x98"]
MARK = "\u2603TRAP{}\u2603"


def _strings(value, out, path=()):
    """(container, key) of every string in a value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str):
                out.append((value, key))
            else:
                _strings(item, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str):
                out.append((value, index))
            else:
                _strings(item, out)


def trapped(seed: int) -> tuple[bytes, dict[str, str]]:
    rng = random.Random(seed)
    messages = chatgen.chat(seed, messages=rng.randint(3, 40), scale=rng.choice([300, 700, 1200]), traps=seed % 5 == 4)
    traps: dict[str, bytes] = {}
    old_tools = [i for i, m in enumerate(messages[: len(messages) // 2]) if m.get("role", "").startswith("function")]
    for n in range(rng.randint(1, 3)):
        # mostly old tool messages (cut or dropped by small thresholds), else anywhere
        j = rng.choice(old_tools) if old_tools and rng.random() < 0.6 else rng.randrange(len(messages))
        message = messages[j]
        mark = MARK.format(n)
        inner = None
        content = message.get("content")
        if message.get("role") in ("function_call", "function_call_output") and isinstance(content, str):
            try:
                inner = json.loads(content)
            except ValueError:
                inner = None
        if inner is not None and rng.random() < 0.7:
            slots: list = []
            _strings(inner, slots)
            if isinstance(inner, dict) and rng.random() < 0.1:
                inner[mark + "k"] = 1  # in a key
                slots = []
            if slots:
                box, key = rng.choice(slots)
                box[key] = _place(rng, box[key], mark)
            message["content"] = json.dumps(inner, ensure_ascii=rng.random() < 0.3)
            level = 2
        else:
            if rng.random() < 0.05:
                message[mark + "k"] = 1  # a key of the chat file (a Symbol in Ruby)
            else:
                key = rng.choice([k for k, v in message.items() if isinstance(v, str)] or ["content"])
                message[key] = _place(rng, message.get(key) if isinstance(message.get(key), str) else "", mark)
            level = 1
        if rng.random() < 0.5:
            escape = rng.choice(ESCAPES)
            trap = (escape.replace("\\", "\\\\") if level == 2 else escape).encode()
        else:
            trap = rng.choice(RAW)
        traps[mark] = trap
    data = json.dumps(messages, ensure_ascii=False).encode()
    for mark, trap in traps.items():
        data = data.replace(mark.encode(), trap)
    env = chatgen.thresholds(rng)
    if rng.random() < 0.6:
        env["MAX_TOOL_CHARS"] = str(rng.choice([0, 300, 1500, 4000]))
        env["MAX_TOOL_OUTPUTS"] = env["MAX_TOOL_CALLS"] = str(rng.randint(0, 6))
    return data, env


def _place(rng: random.Random, text: str, mark: str) -> str:
    where = rng.choice(["start", "end", "mid", "near_end"])
    if where == "start" or not text:
        return mark + text
    if where == "end":
        return text + mark
    if where == "near_end":
        cut = max(0, len(text) - rng.randint(1, 6))
        return text[:cut] + mark + text[cut:]
    cut = rng.randrange(len(text))
    return text[:cut] + mark + text[cut:]


def main(oracle: str, count: int = 300, first: int = 0) -> int:
    clean = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    mismatches = same_out = both_raise = 0
    for seed in range(first, first + count):
        data, env = trapped(seed)
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as handle:
            handle.write(data)
            path = handle.name
        ruby = subprocess.run(["ruby", oracle, path], capture_output=True, env={**clean, **env})
        ours = subprocess.run(
            [sys.executable, "-m", "inspector", "prepare", path, "--no-scout-config"],
            capture_output=True,
            env={**clean, **env},
        )
        os.unlink(path)
        if ruby.returncode == 0:
            ok = ours.returncode == 0 and ours.stdout == ruby.stdout
            same_out += ok
        else:
            found = re.search(r"\(([A-Z]\w*(?:::\w+)*)\)$", ruby.stderr.decode("utf-8", "replace"), re.M)
            exception = found.group(1) if found else "?"
            at_load = "prompt_oracle.rb:178:in" in ruby.stderr.decode("utf-8", "replace")  # JSON.parse(File.read)
            said = ours.stderr.decode("utf-8", "replace")
            if at_load:
                ok = ours.returncode == 2 and not ours.stdout
            else:
                ok = ours.returncode == 3 and not ours.stdout and f"would raise {exception}" in said
            both_raise += ok
        if not ok:
            mismatches += 1
            print(f"seed {seed}: ruby rc={ruby.returncode} {ruby.stderr[-300:]!r}")
            print(f"   ours rc={ours.returncode} {ours.stderr[-300:]!r}")
            if ruby.returncode == 0 and ours.returncode == 0:
                a, b = ruby.stdout, ours.stdout
                at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                print(
                    f"   first difference at byte {at}: ruby {a[at - 40 : at + 40]!r}\n   ours {b[at - 40 : at + 40]!r}"
                )
    print(f"cases {count}: same output {same_out}, both raise {both_raise}, mismatches {mismatches}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(args[0], *(int(a) for a in args[1:])))

"""Regenerate the escaped-surrogate / invalid-UTF-8 goldens from Ruby (developers only; tests never need Ruby).

    python tests/golden_surrogates/make_cases.py /work/shared/reference/prompt_oracle.rb

strings.json: one JSON text per case, what Ruby's json 2.6.1 parses its string to (bytes, String#length,
MD5) or the ParserError it raises, and whether JSON.generate then raises (read_strings.rb).
chats.json: whole chats (bytes in hex) from tests/surrogate_differential.py's generator, with the oracle's
output or the fact that it raised (and which exception class, and whether while reading the file).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent))

import surrogate_differential as diff  # noqa: E402

BODIES = [
    r"lone \ud800 surrogate",
    r"\ud800abcdef",
    r"\ud800abcde",
    r"\ud800a",
    r"\ud800",
    r"x\ud800abcdefg",
    r"\ud800\u0041zzzzzz",
    r"\ud800\u0041",
    r"\ud800\udc00",
    r"\uD800\uDC00",
    r"\uDBFF\uDFFF",
    r"\ud83d\ude00 ok",
    r"\ud800\ud800",
    r"\ud800\ud800\udc00xx",
    r"a\udc00bcdefgh",
    r"\udc00",
    r"\uDFFF end",
    r"\udc00\ud800abcdef",
    r"\ud800\nabcdef",
    r"\ud800\\abcdef",
    r"\ud800\"abcdef",
    r"\ud800\u00e9abcd",
    r"\ud800ab\u0041cd",
    "\\ud800a\u00e9",
    "\\ud800\u00e9abc",
    "\\ud800\u00e9abcd",
    r"\ud800\\uzzzzzz",
    r"\ud800\\u00e9zz",
    r"\ud800\\u00e",
    r"\ud800\\u00",
    r"\ud800x\ud800yyyyyyyy",
    r"\ud800\\\ud800yyyyyyyy",
    r"\a\/\q",
]
RAW = [b"a\xffb", b"a\xffbcdefgh", b"\xed\xa0\x80", b"\xc3", b"x\xe2\x82", b"\x80abc", b"\xf4\x90\x80\x80", b"\xc0\xaf"]
RAW += [b"\xf0\x9f\x98", b"\xf0\x9f\x98 ", b"caf\xc3\xa9 \xff", b"\xfe\xfe\xfe\xfe\xfe\xfe\xfe"]


def strings() -> list[dict]:
    texts = [('["' + body + '"]').encode() for body in BODIES] + [b'["' + raw + b'"]' for raw in RAW]
    run = subprocess.run(
        ["ruby", str(HERE / "read_strings.rb")],
        input="".join(t.hex() + "\n" for t in texts).encode(),
        capture_output=True,
        check=True,
    )
    return [json.loads(line) for line in run.stdout.decode().splitlines()]


def chats(oracle: str, seeds: range) -> list[dict]:
    out = []
    clean = {k: v for k, v in os.environ.items() if k not in diff.ENV_KEYS}
    for seed in seeds:
        data, env = diff.trapped(seed)
        with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as handle:
            handle.write(data)
            path = handle.name
        run = subprocess.run(["ruby", oracle, path], capture_output=True, env={**clean, **env})
        os.unlink(path)
        err = run.stderr.decode("utf-8", "replace")
        found = re.search(r"\(([A-Z]\w*(?:::\w+)*)\)$", err, re.M)
        out.append(
            {
                "seed": seed,
                "env": env,
                "input": data.hex(),
                "raises": None if run.returncode == 0 else (found.group(1) if found else "?"),
                "at_load": "prompt_oracle.rb:178:in" in err,
                "expected": run.stdout.hex() if run.returncode == 0 else None,
            }
        )
    return out


def main(oracle: str) -> None:
    (HERE / "strings.json").write_text(json.dumps(strings(), indent=0) + "\n")
    # small chats only (the file stays small), every outcome kept
    picked = [case for case in chats(oracle, range(3000, 3120)) if len(case["input"]) < 24000][:45]
    (HERE / "chats.json").write_text(json.dumps(picked, indent=0) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])

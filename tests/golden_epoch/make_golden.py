"""Regenerate the expected outputs of tests/golden_epoch from scout-ai's own Ruby (developers only).

    python tests/golden_epoch/make_golden.py PATH/TO/scout-ai            # a checkout at S (733fc62)
    python tests/golden_epoch/make_golden.py PATH/TO/scout-ai --check    # compare, write nothing
    python tests/golden_epoch/make_golden.py PATH/TO/scout-ai --add 5    # and 5 new generated cases

Each case holds a chat (every message tagged with "_i"), the environment and the strategy list it
runs under; this runs scout-ai's ``Chat.prepare_prompt`` (lib/scout/llm/chat/prompt.rb and the
strategies it requires, loaded from the checkout) on it and records what it prints, or the class of
the exception it raises. Only ``Log`` and ``Scout::Config`` (scout-essentials) and ``Chat.setup``
(an annotation) are stood in for, below. Needs Ruby; the tests never run this.
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

ENV_KEYS = ("EPOCH_TOOL_CALL_THRESHOLD", "EPOCH_FULL_TOOL_CALLS", "EPOCH_COMPACTED_TOOL_CALLS", "EPOCH_SIZE")
ENV_KEYS += ("FULL_TOOL_CALLS", "FULL_TOOL_OUTPUTS", "MAX_TOOL_CALLS", "MAX_TOOL_OUTPUTS", "MAX_TOOL_CHARS")

# ARGV: scout-ai checkout, messages file, strategies ("" for the default). Prints JSON.generate of the
# prepared prompt, or the exception's class on stderr with exit status 1.
HARNESS = r"""
require 'json'
require 'digest/md5'

module Log  # scout-essentials' Log.truncate_string, and a silent Log.medium
  def self.truncate_string(string, max = 150)
    return string if string.length <= max
    digest = Digest::MD5.hexdigest(string)
    middle = "<...#{string.length} - #{digest[0..4]}...>"
    s = (max - middle.length) / 2
    string.slice(0, s - 1) + middle + string.slice(-s, string.length)
  end
  def self.medium(*); end
end

module Scout  # Scout::Config.get with no config files: the environment, else the default
  module Config
    def self.get(key, *tokens, env: nil, default: nil)
      value = env && ENV[env]
      value.nil? ? default : value
    end
  end
end

module Chat  # the annotation module's setup only tags the array; the JSON is the same
  def self.setup(messages) = messages
end

require File.join(ARGV[0], 'lib/scout/llm/chat/prompt.rb')
messages = JSON.parse(File.read(ARGV[1]), symbolize_names: true)
strategies = ARGV[2].to_s.empty? ? nil : ARGV[2]
begin
  prompt = Chat.prepare_prompt(messages, strategies)
rescue Exception => e
  STDERR.puts e.class.name
  exit 1
end
print JSON.generate(prompt), "\n"
"""


def run_ruby(checkout: str, case: dict) -> dict:
    """The case's outcome under scout-ai: raises, exception (class name) and expected (the printed JSON)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(case["input"], handle, ensure_ascii=False)
        path = handle.name
    clean = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    try:
        run = subprocess.run(
            ["ruby", "-e", HARNESS, checkout, path, case["strategies"] or ""],
            capture_output=True,
            env={**clean, **case["env"]},
        )
    finally:
        os.unlink(path)
    if run.returncode != 0:
        return {"raises": True, "exception": run.stderr.decode().strip().splitlines()[-1], "expected": None}
    return {"raises": False, "exception": None, "expected": run.stdout.decode("utf-8")}


def new_case(seed: int) -> dict:
    """A generated chat long enough for the epoch windows, under random epoch settings."""
    rng = random.Random(20_000 + seed)
    messages = chatgen.chat(20_000 + seed, messages=rng.randint(20, 120), scale=rng.choice([100, 300, 700]))
    for i, message in enumerate(messages):
        message["_i"] = i
    env = {}
    for key in ENV_KEYS[:4]:
        if rng.random() < 0.8:
            env[key] = str(rng.choice([0, 1, 2, 3, 5, 10]))
    strategies = rng.choice(["shorten_tools_epoch"] * 4 + ["none,shorten_tools_epoch", "shorten_tools_epoch," * 2])
    return {"source": f"fuzz_{20_000 + seed}", "env": env, "strategies": strategies.rstrip(","), "input": messages}


def main(argv: list[str]) -> int:
    checkout, check = argv[0], "--check" in argv
    add = int(argv[argv.index("--add") + 1]) if "--add" in argv else 0
    paths = sorted(HERE.glob("case_*.json"))
    differ = 0
    for path in paths:
        case = json.loads(path.read_text(encoding="utf-8"))
        outcome = run_ruby(checkout, case)
        if all(case.get(k) == v for k, v in outcome.items()):
            continue
        differ += 1
        print(f"{path.name}: differs from scout-ai", file=sys.stderr)
        if not check:
            path.write_text(json.dumps({**case, **outcome}, ensure_ascii=False), encoding="utf-8")
    for k in range(add if not check else 0):
        case = new_case(len(paths) + k)
        case.update(run_ruby(checkout, case))
        (HERE / f"case_{len(paths) + k:02d}.json").write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    print(f"{len(paths)} case(s), {differ} differ{' (not written: --check)' if check and differ else ''}")
    return 1 if check and differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

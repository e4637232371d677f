"""Issue 12's cases, measured: exit code, seconds, peak RSS, and whether a traceback or a raw escape got out.

Builds every hostile input in a temporary directory (FIFOs, links to devices, sparse multi-GB files),
runs the CLI on each in a subprocess with a timeout, and prints one row per case. Run:

    python benchmarks/bench_hostile.py
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GiB = 1024**3

_WRAPPER = """
import resource, subprocess, sys
r = subprocess.run([sys.executable, "-m", "inspector", *sys.argv[1:]])
sys.stderr.write("\\npeak-rss-kib %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)
"""


def sparse(path: Path, size: int, head: bytes = b"") -> None:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def build(d: Path) -> list[tuple[str, list[str], dict]]:
    (d / "ok.chat").write_text("user:\nhello\n")
    os.mkfifo(d / "fifo.chat")
    os.symlink("/dev/zero", d / "zero.chat")
    os.symlink("/dev/urandom", d / "urandom.json")
    sparse(d / "nul6g.chat", 6 * GiB)
    sparse(d / "nul900m.chat", 900 * 1024**2, b"user:\nhi\n\x00")
    sparse(d / "big3g.txt", 3 * GiB, b"text\n")
    for role in ("import", "continue", "last"):
        (d / f"{role}_fifo.chat").write_text(f"user:\nhi\n\n{role}: fifo.chat\n\n{role}: zero.chat\n")
    (d / "sub").mkdir()
    (d / "import_dir.chat").write_text("user:\nhi\n\nimport: sub\n")
    (d / "last_dir.chat").write_text("user:\nhi\n\nlast: sub\n")
    tree = d / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("A\n")
    os.mkfifo(tree / "b.pipe")
    os.symlink("/dev/zero", tree / "c.zero")
    (d / "directory.chat").write_text("user:\nhi\n\ndirectory: tree\n")
    (d / "file3g.chat").write_text("user:\nhi\n\nfile: big3g.txt\n")
    many = d / "many"
    many.mkdir()
    for i in range(10_050):
        (many / f"f{i:05d}.txt").write_text("x")
    (d / "many.chat").write_text("user:\nhi\n\ndirectory: many\n")
    for name, doc in (
        ("inf.json", [{"role": "user", "content": 1e400}]),
        ("inf_openai.json", {"messages": [{"role": "user", "content": 1e400}]}),
        ("inf_anthropic.json", {"system": "s", "messages": [{"role": "user", "content": 1e400}]}),
    ):
        (d / name).write_text(json.dumps(doc).replace("Infinity", "1e400"))
    role = "\x1b]52;c;aGVsbG8=\x07\x1b[2J\x1b]0;pwned\x07" + "r" * 100_000
    (d / "osc.json").write_text(json.dumps([{"role": role, "content": "x"}]))
    (d / "digits.chat").write_text("config: max_tool_chars " + "7" * 5000 + " prompt\n\nuser:\nhi\n")
    cfg = d / "cfgdirs"
    for kind in ("fifo", "zero", "big", "prio"):
        (cfg / kind / "etc").mkdir(parents=True)
        (cfg / kind / "c.chat").write_text("user:\nhi\n")
    os.mkfifo(cfg / "fifo" / "etc" / "config")
    os.symlink("/dev/zero", cfg / "zero" / "etc" / "config")
    sparse(cfg / "big" / "etc" / "config", 2 * 1024**2)
    (cfg / "prio" / "etc" / "config").write_text("max_tool_chars 9 prompt\nmax_tool_chars 7 prompt::²\n")
    home = d / "home"
    (home / ".scout" / "etc").mkdir(parents=True)
    os.mkfifo(home / ".scout" / "etc" / "config")
    (d / "real.json").write_text("old\n")
    os.symlink("real.json", d / "link.json")
    return [
        ("FIFO as the chat", ["explain", "fifo.chat"], {}),
        ("link to /dev/zero as the chat", ["explain", "zero.chat"], {}),
        ("link to /dev/urandom as the chat", ["prepare", "urandom.json"], {}),
        ("6 GiB sparse file of NULs", ["explain", "nul6g.chat"], {}),
        ("900 MiB file, NUL on line 3", ["explain", "nul900m.chat"], {}),
        ("import: FIFO + /dev/zero", ["prepare", "import_fifo.chat"], {}),
        ("continue: FIFO + /dev/zero", ["prepare", "continue_fifo.chat"], {}),
        ("last: FIFO + /dev/zero", ["prepare", "last_fifo.chat"], {}),
        ("import: a directory", ["prepare", "import_dir.chat"], {}),
        ("last: a directory", ["prepare", "last_dir.chat"], {}),
        ("directory: with FIFO + /dev/zero", ["prepare", "directory.chat"], {}),
        ("file: 3 GiB target", ["prepare", "file3g.chat"], {}),
        ("directory: 10,050 files", ["explain", "many.chat"], {}),
        ("./etc/config is a FIFO", ["explain", "c.chat"], {"cwd": cfg / "fifo"}),
        ("./etc/config -> /dev/zero", ["explain", "c.chat"], {"cwd": cfg / "zero"}),
        ("./etc/config is 2 MiB", ["explain", "c.chat"], {"cwd": cfg / "big"}),
        ("~/.scout/etc/config is a FIFO", ["explain", "ok.chat"], {"home": home}),
        ("config priority prompt::²", ["thresholds", "c.chat"], {"cwd": cfg / "prio"}),
        *[
            (f"1e400 {name} --format {fmt}", ["prepare", name, "--format", fmt], {})
            for name in ("inf.json", "inf_openai.json", "inf_anthropic.json")
            for fmt in ("json", "jsonl", "chat", "responses")
        ],
        ("5,000-digit threshold (chat config:)", ["explain", "digits.chat"], {}),
        ("5,000-digit threshold (--set)", ["thresholds", "--set", "max_tool_chars=" + "7" * 5000], {}),
        ("5,000-digit threshold (env)", ["thresholds"], {"env": {"MAX_TOOL_CHARS": "7" * 5000}}),
        ("MAX_TOOL_CHARS=１２ (env)", ["thresholds"], {"env": {"MAX_TOOL_CHARS": "１２"}}),
        ("--set max_tool_chars=abc", ["thresholds", "--set", "max_tool_chars=abc"], {}),
        ("role with OSC 52 + 100,000 chars", ["prepare", "osc.json"], {}),
        ("-o through a link", ["prepare", "ok.chat", "-o", "link.json"], {}),
        ("-o /dev/null", ["prepare", "ok.chat", "-o", "/dev/null"], {}),
    ]


def run(d: Path, args: list[str], cwd=None, home=None, env=None) -> tuple[int, float, float, str, str]:
    base = {k: v for k, v in os.environ.items() if not k.endswith(("_TOOL_CALLS", "_TOOL_OUTPUTS", "_TOOL_CHARS"))}
    base.update(PYTHONPATH=str(ROOT), HOME=str(home or d), **(env or {}))
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", _WRAPPER, *args], capture_output=True, cwd=cwd or d, env=base, timeout=20
        )
    except subprocess.TimeoutExpired:
        return -1, time.perf_counter() - start, -1, "", "TIMEOUT"
    seconds = time.perf_counter() - start
    err = done.stderr.decode("utf-8", "replace")
    body, _, last = err.rstrip("\n").rpartition("\n")
    return done.returncode, seconds, int(last.split()[-1]) / 1024, done.stdout.decode("utf-8", "replace"), body


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        d = Path(tmp)
        cases = build(d)
        print(f"{'case':42} exit  seconds  peak MiB  traceback  raw escape  first stderr line")
        for label, args, options in cases:
            code, seconds, peak, out, err = run(d, args, **options)
            trace = "Traceback" in out + err or "this is a bug" in err
            escape = any(c in out + err for c in "\x1b\x07\x9b")
            first = (err.splitlines() or [""])[0][:90]
            row = f"{label[:42]:42} {code:>4}  {seconds:7.2f}  {peak:8.1f}  {'YES' if trace else 'no':9}  "
            print(row + f"{'YES' if escape else 'no':10}  {first}")
        link = d / "link.json"
        print(f"-o link.json: link kept = {link.is_symlink()}, target written = {(d / 'real.json').read_text()[:20]!r}")
    print(f"this process peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

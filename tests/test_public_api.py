"""The public Python API: ``inspector.core``'s names, and the README's Python, which is run here so it cannot
drift from the code again (it once named a module that did not exist)."""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import inspector.core
from inspector.core.scout.strategies import known_strategies, unregister_strategy

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"

PUBLIC = {
    "open_inspection",
    "open_history",
    "ChatSource",
    "Setup",
    "Inspection",
    "ChatHistory",
    "Prompt",
    "Planner",
    "Decision",
    "Tier",
    "register_strategy",
}

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_IMPORT = re.compile(
    r"^(?:from\s+[\w.]+\s+import\s+.+|import\s+[\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)$"
)
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_DOTTED = re.compile(r"(inspector(?:\.\w+)+)(?:\(.*\))?")


def fenced(text: str, language: str | None = None) -> list[str]:
    """The fenced code blocks, of one language or all."""
    return [body for lang, body in _FENCE.findall(text) if language is None or lang == language]


def import_lines(text: str) -> list[str]:
    """Every import statement written in the README: a line of any code block (fenced or indented), or an
    inline code span that is one."""
    found: list[str] = []
    prose = _FENCE.sub("", text)
    for block in fenced(text):
        found += [line.strip() for line in block.splitlines() if _IMPORT.match(line.strip())]
    for line in prose.splitlines():
        if line.startswith(("    ", "\t")) and _IMPORT.match(line.strip()):
            found.append(line.strip())
    found += [span.strip() for span in _SPAN.findall(prose) if _IMPORT.match(span.strip())]
    return list(dict.fromkeys(found))


def dotted_names(text: str) -> list[str]:
    """Inline code naming something by its dotted path (``inspector.core.x.y``, a call allowed after it)."""
    prose = _FENCE.sub("", text)
    return list(dict.fromkeys(m.group(1) for span in _SPAN.findall(prose) if (m := _DOTTED.fullmatch(span.strip()))))


def resolve_dotted(name: str) -> object:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(name)


def _run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env, timeout=300, check=False
    )


# -- the README ---------------------------------------------------------------------------------


def test_the_extractors_find_what_they_should():
    text = (
        "Use `from a.b import c` or `import d`; see `inspector.core.x(name)`.\n\n"
        "    import e.f\n\n```python\nfrom g import h, i\nx = 1\n```\n\n```toml\n[tool]\n```\n"
    )
    assert import_lines(text) == ["from g import h, i", "import e.f", "from a.b import c", "import d"]
    assert dotted_names(text) == ["inspector.core.x"]
    assert fenced(text, "python") == ["from g import h, i\nx = 1\n"]


def test_the_readme_has_a_python_example_with_the_public_import():
    text = README.read_text(encoding="utf-8")
    assert fenced(text, "python")
    assert any(line.startswith("from inspector.core import") for line in import_lines(text))


@pytest.mark.parametrize("line", import_lines(README.read_text(encoding="utf-8")))
def test_every_readme_import_line_runs(line: str):
    exec(compile(line, "README.md", "exec"), {})


@pytest.mark.parametrize("name", dotted_names(README.read_text(encoding="utf-8")))
def test_every_dotted_name_in_the_readme_resolves(name: str):
    resolve_dotted(name)


@pytest.mark.parametrize("number", range(len(fenced(README.read_text(encoding="utf-8"), "python"))))
def test_every_readme_python_example_runs(number: int, tmp_path: Path, monkeypatch, capsys):
    """Run elsewhere than the source tree (the demo chat is bundled); what it registers is taken back."""
    code = fenced(README.read_text(encoding="utf-8"), "python")[number]
    monkeypatch.chdir(tmp_path)
    before = set(known_strategies())
    try:
        exec(compile(code, f"README.md python block {number}", "exec"), {"__name__": "__readme__"})
    finally:
        for name in set(known_strategies()) - before:
            unregister_strategy(name)
    assert capsys.readouterr().out.strip()  # it shows something: totals, decisions


@pytest.mark.slow
@pytest.mark.parametrize("number", range(len(fenced(README.read_text(encoding="utf-8"), "python"))))
def test_every_readme_python_example_runs_in_a_fresh_process(number: int, tmp_path: Path):
    """As a user runs it: a new interpreter, only the package on the path."""
    code = fenced(README.read_text(encoding="utf-8"), "python")[number]
    result = _run_python(code, tmp_path)
    assert result.returncode == 0, f"README python block {number} failed:\n{result.stderr}"
    assert result.stdout.strip()


# -- inspector.core's public names ---------------------------------------------------------------


def test_all_is_the_public_api_and_every_name_resolves():
    assert set(inspector.core.__all__) == PUBLIC
    for name in inspector.core.__all__:
        value = getattr(inspector.core, name)
        assert value is not None
        assert getattr(value, "__name__", name) == name
        assert name in dir(inspector.core)
    namespace: dict[str, object] = {}
    exec("from inspector.core import *", namespace)
    assert set(namespace) >= PUBLIC


def test_the_public_names_are_the_engines_own():
    from inspector.core.calls.history import ChatHistory
    from inspector.core.inspection import open_inspection
    from inspector.core.scout.strategies import register_strategy
    from inspector.core.setup import Setup

    assert inspector.core.ChatHistory is ChatHistory
    assert inspector.core.open_inspection is open_inspection
    assert inspector.core.register_strategy is register_strategy
    assert inspector.core.Setup is Setup


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import():
    with pytest.raises(AttributeError, match="no_such_name"):
        inspector.core.no_such_name  # noqa: B018
    from inspector.core import yielding  # a submodule, not a public name

    assert yielding.__name__ == "inspector.core.yielding"


def test_open_history_is_a_chat_history(tmp_path: Path):
    from inspector.core import ChatHistory, ChatSource, Setup, open_history
    from inspector.demo import demo_chat_path

    history = open_history(ChatSource.of(demo_chat_path()), Setup.of(strategies="shorten_tools"))
    assert isinstance(history, ChatHistory)
    assert history.calls and history.setup.strategies == "shorten_tools"
    assert history.at(1).prompt().totals().messages > 0


def test_the_core_package_imports_nothing_of_the_engine_when_imported():
    """Its names come from __getattr__ when first used: at import time only the standard library runs."""
    tree = ast.parse((ROOT / "inspector" / "core" / "__init__.py").read_text(encoding="utf-8"))
    eager = []
    for node in tree.body:  # the statements run at import (the TYPE_CHECKING block's are not among them)
        if isinstance(node, ast.Import | ast.ImportFrom):
            module = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
            if (module or "").startswith("inspector") or module == "typing":
                eager.append(ast.unparse(node))
    assert eager == []


@pytest.mark.slow
def test_importing_the_core_is_cheap_and_loads_no_ui():
    """``import inspector.core`` loads no engine module (the names come when used), and using every one of
    them imports neither Textual nor Rich."""
    code = (
        "import sys\n"
        "import inspector.core\n"
        "print(sorted(m for m in sys.modules if m.startswith('inspector')))\n"
        "from inspector.core import *\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))\n"
    )
    result = _run_python(code, ROOT)
    assert result.returncode == 0, result.stderr
    loaded, ui = result.stdout.strip().splitlines()
    assert loaded == str(["inspector", "inspector.core"])
    assert ui == "[]"

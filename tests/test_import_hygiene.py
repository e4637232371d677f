"""Import hygiene: no cycles among the package's modules (function-level imports included) and no
private name imported from another package. The graph is built from the source with ``ast``."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "inspector"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name | ast.Attribute) and ast.unparse(test).endswith("TYPE_CHECKING")


@cache  # the three checks read the same sources: parse each once
def imports_of(name: str) -> list[tuple[str, str | None, int]]:
    """(module imported, name taken from it or None, line) for every import statement, at any depth."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if is_package(name) else name.rpartition(".")[0]
    found: list[tuple[str, str | None, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking_only(node):
            return  # annotations only: never imported at run time
        if isinstance(node, ast.Import):
            found.extend((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.extend((source, alias.name, node.lineno) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name in MODULES:
        for source, taken, _ in imports_of(name):
            if taken is not None and f"{source}.{taken}" in MODULES:
                edges[name].add(f"{source}.{taken}")  # `from package import module`
            elif source in MODULES:
                edges[name].add(source)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module, or a module importing itself (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges[v]:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return out


def test_the_graph_sees_function_level_imports():
    edges = graph()
    assert len(MODULES) > 60 and "inspector.core.scout.prepare" in edges["inspector.core.inspection"]
    # main imports the app only inside a function: the edge must still be there
    assert "inspector.ui.app" in edges["inspector.cli.main"]


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}}) == [["a"]] and cycles({"a": {"b"}, "b": set()}) == []


def test_no_private_name_imported_across_packages():
    crossing = []
    for name in MODULES:
        package = name if is_package(name) else name.rpartition(".")[0]
        for source, taken, line in imports_of(name):
            if not source.startswith("inspector"):
                continue
            source_package = source if source in MODULES and is_package(source) else source.rpartition(".")[0]
            private = [
                part for part in [*source.split("."), taken or ""] if part.startswith("_") and part != "__init__"
            ]
            if private and source_package != package:
                crossing.append(f"{name}:{line}: from {source} import {taken}")
    assert crossing == []


def private_textual_uses(source: str, pilot: bool) -> list[str]:
    """What a test module takes from Textual's or Rich's private side: an import of a ``_`` module or
    name; in a pilot test (``pilot``) also any ``_`` attribute, since there the objects are Textual's."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in {"textual", "rich"}:
            names = [*str(node.module).split("."), *(alias.name for alias in node.names)]
            if any(name.startswith("_") for name in names):
                found.append(f"{node.lineno}: from {node.module} import {', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in {"textual", "rich"} and any(part.startswith("_") for part in parts):
                    found.append(f"{node.lineno}: import {alias.name}")
        elif pilot and isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_the_private_use_finder_finds_them():
    source = "from textual._compositor import Compositor\nimport rich._loop\nfrom textual.app import App\napp._driver\n"
    assert private_textual_uses(source, pilot=True) == [
        "1: from textual._compositor import Compositor",
        "2: import rich._loop",
        "4: ._driver",
    ]
    assert private_textual_uses(source, pilot=False) == private_textual_uses(source, pilot=True)[:2]


def test_tests_use_no_private_textual_name():
    """Tests hold to Textual's public API, so a Textual upgrade breaks only what the app itself uses."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        pilot = "ui" in path.relative_to(ROOT / "tests").parts[:-1]
        found += [f"{path.relative_to(ROOT)}:{use}" for use in private_textual_uses(path.read_text("utf-8"), pilot)]
    assert found == []

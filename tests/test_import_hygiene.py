"""Import hygiene: no cycles among the package's modules (function-level imports included), no private
name imported from another package, the core's declared layers (a lower one never imports a higher one)
and no cycle between packages. The graph is built from the source with ``ast``."""

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


@cache  # the checks read the same sources: parse each once
def imports_of(name: str, type_checking: bool = False) -> list[tuple[str, str | None, int]]:
    """(module imported, name taken from it or None, line) for every import statement, at any depth;
    with ``type_checking``, those under ``if TYPE_CHECKING:`` too."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if is_package(name) else name.rpartition(".")[0]
    found: list[tuple[str, str | None, int]] = []

    def visit(node: ast.AST) -> None:
        if not type_checking and isinstance(node, ast.If) and _type_checking_only(node):
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


def imported_module(source: str, taken: str | None) -> str | None:
    """The module of ours an import reads: ``from package import module`` is the module, else the source."""
    if taken is not None and f"{source}.{taken}" in MODULES:
        return f"{source}.{taken}"
    return source if source in MODULES else None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name in MODULES:
        for source, taken, _ in imports_of(name):
            target = imported_module(source, taken)
            if target is not None:
                edges[name].add(target)
    return edges


def all_imports() -> list[tuple[str, int, str]]:
    """(importer, line, module imported) for every import of one of our modules: function-level ones and
    those under ``if TYPE_CHECKING:`` included (a type is a dependency too)."""
    found = []
    for name in MODULES:
        for source, taken, line in imports_of(name, type_checking=True):
            target = imported_module(source, taken)
            if target is not None and target != name:
                found.append((name, line, target))
    return found


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


# -- layers -----------------------------------------------------------------------------------------
# The layers, lowest first: a module may import its own layer and those below, never one above. A module
# is in the layer of the longest prefix naming it (the prefix itself or a module under it; the two roots
# name only their own ``__init__``). ARCHITECTURE.md's "Layers" section says what each one holds.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "inspector",  # version()
            "inspector.demo",
            "inspector.core.errors",
            "inspector.core.model",
            "inspector.core.yielding",
            "inspector.core.lazy_re",
            "inspector.core.numbering",
            "inspector.core.files",
        ),
    ),
    ("ruby", ("inspector.core.ruby",)),
    ("tokens", ("inspector.core.tokens",)),  # counting tokens: scout, analysis, calls and present use it
    ("policies", ("inspector.core.policies",)),
    ("scout", ("inspector.core.scout",)),
    ("strategies", ("inspector.core.scout.strategies",)),
    ("prepare", ("inspector.core.scout.prepare",)),
    ("peers", ("inspector.core.peers",)),  # the other frameworks' policies: a family beside scout-ai's
    ("io", ("inspector.core.io",)),
    ("inspection", ("inspector.core.setup", "inspector.core.inspection")),
    ("analysis", ("inspector.core.analysis",)),
    ("calls", ("inspector.core.calls",)),
    ("corpus", ("inspector.core.corpus",)),
    ("present", ("inspector.core.present",)),
    ("api", ("inspector.core",)),  # the public names, imported when first used
    ("ui", ("inspector.ui",)),
    ("cli", ("inspector.cli", "inspector.__main__")),  # `prompt-inspector` with no command starts the app
]
ROOTS = {"inspector", "inspector.core"}

# Imports up a layer that stay until their users move; each names what to do. A stale entry fails.
PENDING: dict[tuple[str, str], str] = {}  # upward imports allowed for a while, each with why


def layer_of(name: str) -> int | None:
    best, found = -1, None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            named = name == prefix or (prefix not in ROOTS and name.startswith(prefix + "."))
            if named and len(prefix) > best:
                best, found = len(prefix), rank
    return found


def upward_imports(imports: list[tuple[str, int, str]]) -> list[str]:
    """Each import of a higher layer's module: the importer, its line and what it imports."""
    found = []
    for importer, line, target in imports:
        low, high = layer_of(importer), layer_of(target)
        if low is not None and high is not None and high > low and (importer, target) not in PENDING:
            found.append(f"{importer}:{line} imports {target}: layer {LAYERS[low][0]!r} is below {LAYERS[high][0]!r}")
    return found


def test_every_module_has_a_layer():
    assert [name for name in MODULES if layer_of(name) is None] == []


def test_no_layer_imports_a_higher_one():
    found = upward_imports(all_imports())
    assert found == [], "\n".join(["imports up a layer (see LAYERS):", *found])


def test_the_layer_check_finds_upward_imports():
    imports = [
        ("inspector.core.scout.preprocess", 23, "inspector.core.io.formats"),  # scout below io
        ("inspector.core.scout.strategies.windows", 9, "inspector.core.scout.prepare"),
        ("inspector.core.analysis.trace", 25, "inspector.core"),  # the public names are above the core
        ("inspector.core.present.rows", 20, "inspector.core.scout.prepare"),  # down: allowed
        ("inspector.core.scout.prepared", 9, "inspector.core.scout.roles"),  # not the `prepare` layer
    ]
    assert upward_imports(imports) == [
        "inspector.core.scout.preprocess:23 imports inspector.core.io.formats: layer 'scout' is below 'io'",
        "inspector.core.scout.strategies.windows:9 imports inspector.core.scout.prepare: layer 'strategies' is "
        "below 'prepare'",
        "inspector.core.analysis.trace:25 imports inspector.core: layer 'analysis' is below 'api'",
    ]
    assert layer_of("inspector.core.scout.strategies") == layer_of("inspector.core.scout.strategies.windows")
    assert layer_of("inspector.core") != layer_of("inspector.core.model") and layer_of("inspector.nowhere") is None


def test_pending_upward_imports_are_still_there():
    """An entry of PENDING whose import is gone is deleted with it, so the list says what is really left."""
    present = {(importer, target) for importer, _, target in all_imports()}
    assert [f"{a} -> {b}: {why}" for (a, b), why in PENDING.items() if (a, b) not in present] == []


def package_of(name: str) -> str:
    """The unit the package cycle check sees: ``inspector.core.X`` (a sub-package with all it holds, or a
    top-level module), ``inspector.cli``, ``inspector.ui``; any other module is its own."""
    parts = name.split(".")
    if parts[:2] == ["inspector", "core"] and len(parts) > 2:
        return ".".join(parts[:3])
    if parts[:2] in (["inspector", "cli"], ["inspector", "ui"]):
        return ".".join(parts[:2])
    return name


def package_graph(imports: list[tuple[str, int, str]]) -> tuple[dict[str, set[str]], dict[tuple[str, str], str]]:
    """Edges between packages, and one import that makes each edge (``module:line -> module``)."""
    edges: dict[str, set[str]] = {package_of(name): set() for name in MODULES}
    why: dict[tuple[str, str], str] = {}
    for importer, line, target in imports:
        a, b = package_of(importer), package_of(target)
        if a != b and (importer, target) not in PENDING:
            edges.setdefault(a, set()).add(b)
            edges.setdefault(b, set())
            why.setdefault((a, b), f"{importer}:{line} -> {target}")
    return edges, why


def package_cycles(imports: list[tuple[str, int, str]]) -> list[str]:
    edges, why = package_graph(imports)
    found = []
    for component in cycles(edges):
        inside = sorted(why[a, b] for a in component for b in sorted(edges[a]) if b in component)
        found.append(f"{' <-> '.join(component)}: {'; '.join(inside)}")
    return found


def test_no_cycle_between_packages():
    found = package_cycles(all_imports())
    assert found == [], "\n".join(["packages importing each other:", *found])


def test_the_package_cycle_check_finds_cycles():
    imports = [
        ("inspector.core.scout.named_files", 10, "inspector.core.io.atomic"),
        ("inspector.core.io.formats.scout_chat", 26, "inspector.core.scout.parser"),
        ("inspector.core.scout.prepare", 16, "inspector.core.scout.strategies"),  # inside one package
        ("inspector.core.scout.strategies.windows", 30, "inspector.core.scout.roles"),
    ]
    assert package_cycles(imports) == [
        "inspector.core.io <-> inspector.core.scout: inspector.core.io.formats.scout_chat:26 -> "
        "inspector.core.scout.parser; inspector.core.scout.named_files:10 -> inspector.core.io.atomic"
    ]
    assert package_of("inspector.ui.widgets.detail") == "inspector.ui" and package_of("inspector") == "inspector"


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

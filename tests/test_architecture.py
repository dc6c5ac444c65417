"""The one-way house (games/__init__.py): no import cycle anywhere in the project's packages.

The layers themselves are import-linter's contracts in pyproject.toml, checked by `make test`
(`lint-imports`); a cycle inside one layer or package would not break a layer contract, so it is
looked for here, on the same import graph (grimp, which import-linter uses).

And a house a newcomer can read (issue 51): each package's docstring is its map, naming every
module in it, and no module grows over 600 lines without saying why.
"""

import ast
import re
from pathlib import Path

import grimp

PACKAGES = ("games", "accounts", "saboteur_site")
ROOT = Path(__file__).resolve().parent.parent
LONG = 600  # lines
REASON = "Over 600 lines because"


def import_cycles(graph) -> list[list[str]]:
    """The graph's strongly connected components of more than one module (Tarjan), sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        # Iterative depth-first search: the graph is deep enough to matter for recursion.
        work = [(module, iter(sorted(graph.find_modules_directly_imported_by(module))))]
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_cycle_in_the_project():
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False)
    assert import_cycles(graph) == []


def test_the_cycle_finder_sees_a_cycle():
    graph = grimp.ImportGraph()
    for module in ("a", "a.one", "a.two", "a.three"):
        graph.add_module(module)
    graph.add_import(importer="a.one", imported="a.two")
    graph.add_import(importer="a.two", imported="a.one")
    graph.add_import(importer="a.three", imported="a.one")
    assert import_cycles(graph) == [["a.one", "a.two"]]


def test_dispatch_starts_tasks_that_exist():
    """Code below games.tasks starts tasks by name (games/dispatch.py): each name is a real task."""
    from celery import current_app

    import games.tasks  # noqa: F401 - registers the tasks, as a worker does
    from games import dispatch

    assert set(dispatch.TASKS) <= set(current_app.tasks)


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def _listed(docstring: str) -> list[str]:
    """The names a docstring's list items stand for: "- ``name``: what it holds"."""
    return re.findall(r"^- ``(\w+)``:", docstring, re.M)


def _packages() -> list[Path]:
    """Every package of the project's own code (migrations aside)."""
    return sorted(
        init.parent
        for package in PACKAGES
        for init in (ROOT / package).rglob("__init__.py")
        if "migrations" not in init.parts
    )


def _contents(package: Path) -> list[str]:
    """The names of a package's modules and packages (``__init__``, ``__main__`` and migrations
    aside)."""
    modules = [p.stem for p in package.glob("*.py") if not p.stem.startswith("__")]
    packages = [
        p.name for p in package.iterdir() if (p / "__init__.py").exists() and p.name != "migrations"
    ]
    return sorted(modules + packages)


def test_no_module_is_over_600_lines_without_a_reason():
    """A module over 600 lines says why in its docstring ("Over 600 lines because ..."): the one
    rulebook, Django's one settings module. Anything else long is split where it has a seam."""
    long = []
    for package in _packages():
        for path in sorted(package.glob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > LONG and REASON not in " ".join(_docstring(path).split()):
                long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert long == []


def test_each_package_docstring_names_its_modules():
    """Each package's ``__init__`` docstring is its map: it names (as ``name``) every module and
    package in it, and each of its list items ("- ``name``: ...") names one that exists."""
    missing, stale = [], []
    for package in _packages():
        docstring = _docstring(package / "__init__.py")
        contents = _contents(package)
        where = package.relative_to(ROOT)
        missing += [f"{where}: {name}" for name in contents if f"``{name}``" not in docstring]
        stale += [f"{where}: {name}" for name in _listed(docstring) if name not in contents]
    assert missing == []
    assert stale == []


def test_the_map_test_sees_a_module_left_out(tmp_path):
    package = tmp_path / "house"
    package.mkdir()
    (package / "__init__.py").write_text(
        '"""A house.\n\n- ``kitchen``: food;\n- ``attic``: dust.\n"""\n'
    )
    (package / "kitchen.py").write_text("")
    (package / "cellar.py").write_text("")
    docstring = _docstring(package / "__init__.py")
    assert [name for name in _contents(package) if f"``{name}``" not in docstring] == ["cellar"]
    assert [name for name in _listed(docstring) if name not in _contents(package)] == ["attic"]

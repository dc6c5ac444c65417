"""The one-way house (games/__init__.py): no import cycle anywhere in the project's packages.

The layers themselves are import-linter's contracts in pyproject.toml, checked by `make test`
(`lint-imports`); a cycle inside one layer or package would not break a layer contract, so it is
looked for here, on the same import graph (grimp, which import-linter uses).
"""

import grimp

PACKAGES = ("games", "accounts", "saboteur_site")


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

"""The engine stays pure Python: no Django, no I/O, no clock, no global randomness."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
FORBIDDEN_MODULES = {"django", "time", "datetime", "secrets", "os", "socket", "requests"}


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield (node.module or "").split(".")[0], node.lineno


def test_engine_imports_nothing_impure():
    found = [
        f"{path.name}:{line} imports {module}"
        for path in sorted(ENGINE.glob("*.py"))
        for module, line in _imports(path)
        if module in FORBIDDEN_MODULES
    ]
    assert found == []


def test_engine_uses_no_global_random():
    """Only seeded ``random.Random`` instances: ``random.shuffle`` and friends are refused."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr != "Random"
            ):
                found.append(f"{path.name}:{node.lineno} random.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "random":
                found.append(f"{path.name}:{node.lineno} from random import ...")
    assert found == []

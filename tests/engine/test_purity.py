"""The engine and the bots stay pure Python: no Django, no I/O, no clock, no global randomness."""

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[2] / "games"
ENGINE = GAMES / "engine"
BOTS = GAMES / "bots"
FORBIDDEN_MODULES = {"django", "time", "datetime", "secrets", "os", "socket", "requests"}


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield (node.module or "").split(".")[0], node.lineno


@pytest.mark.parametrize("package", [ENGINE, BOTS], ids=["engine", "bots"])
def test_engine_imports_nothing_impure(package):
    found = [
        f"{path.name}:{line} imports {module}"
        for path in sorted(package.rglob("*.py"))
        for module, line in _imports(path)
        if module in FORBIDDEN_MODULES
    ]
    assert found == []


@pytest.mark.parametrize("package", [ENGINE, BOTS], ids=["engine", "bots"])
def test_engine_uses_no_global_random(package):
    """Only seeded ``random.Random`` instances: ``random.shuffle`` and friends are refused."""
    found = []
    for path in sorted(package.rglob("*.py")):
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


def test_bots_use_nothing_of_the_site_but_the_engine():
    """A bot sees the game only through the engine's API and the public ledger (pure, like the
    engine: games/ledger.py): no models, selectors or services."""
    found = []
    for path in sorted(BOTS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "games":
                names = [f"games.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.ImportFrom) and node.level > 1:
                names = ["(relative import outside games.bots)"]
            for name in names:
                allowed = name.startswith(("games.engine", "games.ledger"))
                if name.split(".")[0] == "games" and not allowed:
                    found.append(f"{path.name}:{node.lineno} imports {name}")
                if name.startswith("("):
                    found.append(f"{path.name}:{node.lineno} {name}")
    assert found == []

"""No function of games/ above cyclomatic complexity 20 (radon), but for the few listed here.

Radon counts a function's branches (if, for, while, except, boolean operators, comprehensions'
conditions...) plus one; a function above 20 is split into named helpers. An exception is written
in ALLOWED with its reason, and leaves the list when its function is split.
"""

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

GAMES = Path(__file__).resolve().parent.parent / "games"
LIMIT = 20

# "path from games/: function" (a method as Class.method, a closure as outer.inner) -> why.
ALLOWED: dict[str, str] = {}


def complexities(source: str) -> dict[str, int]:
    """Every function, method and closure of a module's source, by name, with radon's figure."""
    found: dict[str, int] = {}

    def walk(block: Function | Class, prefix: str) -> None:
        if isinstance(block, Class):
            for inner in (*block.methods, *block.inner_classes):
                walk(inner, f"{prefix}{block.name}.")
            return
        name = f"{prefix}{block.name}"
        found[name] = block.complexity
        for closure in block.closures:
            walk(closure, f"{name}.")

    for block in cc_visit(source):
        # cc_visit lists a class's methods both inside the class and on their own, as
        # Function blocks that know their class: the class alone is walked.
        if isinstance(block, Function) and block.is_method:
            continue
        walk(block, "")
    return found


def too_complex() -> dict[str, int]:
    """Every function of games/ above LIMIT: "path: name" -> complexity."""
    return {
        f"{path.relative_to(GAMES).as_posix()}: {name}": figure
        for path in sorted(GAMES.rglob("*.py"))
        if "migrations" not in path.parts
        for name, figure in complexities(path.read_text(encoding="utf-8")).items()
        if figure > LIMIT
    }


def test_no_function_of_games_above_the_limit_but_the_listed_ones():
    over = too_complex()
    unlisted = {name: figure for name, figure in over.items() if name not in ALLOWED}
    assert unlisted == {}, f"split these into named helpers (at most {LIMIT}): {unlisted}"


def test_every_listed_exception_is_still_needed():
    over = too_complex()
    assert [name for name in ALLOWED if name not in over] == [], (
        "these are at most the limit now: take them out of ALLOWED"
    )


def test_the_count_sees_branches_in_methods_and_closures():
    branches = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(LIMIT))
    source = (
        f"def flat(x):\n{branches}"
        f"class Seat:\n    def tap(self, x):\n{branches.replace('    ', '        ')}"
        f"def outer():\n    def inner(x):\n{branches.replace('    ', '        ')}    return inner\n"
    )
    assert complexities(source) == {
        "flat": LIMIT + 1,
        "Seat.tap": LIMIT + 1,
        "outer": 1,
        "outer.inner": LIMIT + 1,
    }

"""The repository carries its own documents and they hold (issue 51, point 1).

- No tracked file points to a document that is not in the repository: the rule and design notes
  the project started from, the rulebook folder, a path out of the clone.
- Every decision id cited anywhere ("Decision D2", a scenario named ``d2_...``) is a decision of
  docs/rules.md, and every decision there names tests that exist (a scenario file, or a test
  function as ``file::function``).
- Every section of docs/rules.md that code cites ("docs/rules.md 4.3"), and every section of
  docs/architecture.md cited by name, exists; every path the architecture names exists.
- docs/scenarios.md's example file plays as it says.
- The README links both documents.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SCENARIOS_DOC = ROOT / "docs" / "scenarios.md"

# Written in pieces so that this file does not name them itself.
OUTSIDE = re.compile(
    r"\b(?:DESIGN|RULES|SCENARIOS|QUALITY)\.md\b"  # the notes the project started from
    r"|\.\./shared\b|/work/|(?<![\w.])seeds/",  # their folder, the machine, the rulebooks
)
# A decision id: D and a number, not inside a word, a URL escape (%D9), a colour or a name (R2-D2).
DECISION = re.compile(r"(?<![\w%/#&.-])D(\d{1,2})(?![\w-])")
SCENARIO_DECISION = re.compile(r"^d(\d{1,2})_")
RULES_SECTION = re.compile(r"docs/rules\.md,? (\d+(?:\.\d+)*)")
ARCHITECTURE_SECTION = re.compile(r'docs/architecture\.md,? "([^"]+)"')
PINNED = re.compile(r"`(tests/[\w./-]+?)(?:::(\w+))?`")
VENDORED = ("tests/e2e/vendor/",)


@cache
def tracked_texts() -> dict[str, str]:
    """Every tracked text file of the repository (binary files and vendored code left out)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    texts = {}
    for name in filter(None, listed.split("\0")):
        path = ROOT / name
        if name.startswith(VENDORED) or not path.is_file():
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def decisions() -> dict[int, str]:
    """docs/rules.md's decisions: number -> its section's text (heading to next heading)."""
    text = RULES.read_text(encoding="utf-8")
    found: dict[int, str] = {}
    for match in re.finditer(r"^### D(\d+)\. (.+?)(?=^#{2,3} |\Z)", text, re.M | re.S):
        number = int(match.group(1))
        assert number not in found, f"D{number} is defined twice in docs/rules.md"
        found[number] = match.group(2)
    return found


def headings(path: Path) -> list[str]:
    return re.findall(r"^#{2,4} (.+)$", path.read_text(encoding="utf-8"), re.M)


def test_no_tracked_file_points_outside_the_repository():
    own = Path(__file__).relative_to(ROOT).as_posix()
    found = [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)}"
        for name, text in tracked_texts().items()
        if name != own
        for match in OUTSIDE.finditer(text)
    ]
    assert found == []


def test_markdown_links_stay_inside_the_repository_and_exist():
    broken = []
    for name, text in tracked_texts().items():
        if not name.endswith(".md"):
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:|#", target):  # a web address or a place in the same file
                continue
            path = ((ROOT / name).parent / target.split("#")[0]).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                broken.append(f"{name}: {target}")
    assert broken == []


def test_the_outside_patterns_catch_what_they_are_for():
    # What the repository must not say, built here so that only this test names it: joined at run
    # time, since Python folds "a" + "b" into one constant in the compiled file (__pycache__).
    pieces = (("see ", "RULES", ".md 4.3"), ("..", "/", "shared/x"), ("the ", "seeds/", " folder"))
    for text in map("".join, pieces):
        assert OUTSIDE.search(text), text
    assert not OUTSIDE.search("docs/rules.md 4.3, the round seeds, R2-D2")


def test_the_decisions_are_numbered_from_1_without_a_gap():
    numbers = sorted(decisions())
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 12


def test_every_decision_cited_is_in_the_rules():
    known = decisions()
    cited: dict[int, set[str]] = {}
    for name, text in tracked_texts().items():
        for match in DECISION.finditer(text):
            cited.setdefault(int(match.group(1)), set()).add(name)
        found = SCENARIO_DECISION.match(Path(name).name)
        if name.startswith("tests/scenarios/") and found:
            cited.setdefault(int(found.group(1)), set()).add(name)
    missing = {f"D{n}": sorted(names) for n, names in cited.items() if n not in known}
    assert missing == {}
    # The engine and the scenarios cite the decisions: the search above finds them.
    assert {2, 4, 8, 9, 10, 11, 12} <= set(cited)


def pinned_by(section: str) -> list[tuple[str, str | None]]:
    return PINNED.findall(section.split("Pinned by:", 1)[-1]) if "Pinned by:" in section else []


def test_every_decision_names_tests_that_exist():
    problems = []
    for number, section in sorted(decisions().items()):
        tests = pinned_by(section)
        if not tests:
            problems.append(f"D{number}: no test named after 'Pinned by:'")
        for path, function in tests:
            file = ROOT / path
            if not file.is_file():
                problems.append(f"D{number}: {path} does not exist")
            elif function and not re.search(
                rf"^(?:async )?def {function}\(", file.read_text(encoding="utf-8"), re.M
            ):
                problems.append(f"D{number}: {path} has no test {function}")
            elif not function and not path.endswith(".json"):
                problems.append(f"D{number}: {path}: name the test function (file::function)")
    assert problems == []


def test_the_pinned_decision_parser_sees_files_and_functions():
    section = "Text.\n\nPinned by: `tests/scenarios/base/x.json`,\n`tests/engine/test_api.py::f`."
    assert pinned_by(section) == [
        ("tests/scenarios/base/x.json", ""),
        ("tests/engine/test_api.py", "f"),
    ]
    assert pinned_by("A decision without tests.") == []


def test_every_rules_section_cited_exists():
    sections = set()
    for heading in headings(RULES):
        number = re.match(r"(\d+(?:\.\d+)*)\.? ", heading)
        if number:
            sections.add(number.group(1))
    # "1.2.3" is the third condition of the numbered list in 1.2.
    conditions = {f"1.2.{n}" for n in range(1, 5)}
    missing = [
        f"{name}: docs/rules.md {match.group(1)}"
        for name, text in tracked_texts().items()
        for match in RULES_SECTION.finditer(text)
        if match.group(1) not in sections | conditions
    ]
    assert missing == []
    assert {"1.3", "4.3", "7.4", "8", "9", "10"} <= sections


def test_every_architecture_section_cited_exists():
    names = set(headings(ARCHITECTURE))
    missing = [
        f"{name}: {match.group(1)}"
        for name, text in tracked_texts().items()
        for match in ARCHITECTURE_SECTION.finditer(text)
        if match.group(1) not in names
    ]
    assert missing == []


def test_every_path_the_architecture_names_exists():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = []
    for span in re.findall(r"`([^`\n]+)`", text):
        path, _, function = span.partition("::")
        if not re.fullmatch(r"(games|accounts|saboteur_site|tests|docs|static|templates|scripts"
                            r"|bench|locale)/[\w./-]*", path):  # fmt: skip
            continue
        if not (ROOT / path).exists():
            missing.append(span)
        elif function and f"def {function}(" not in (ROOT / path).read_text(encoding="utf-8"):
            missing.append(span)
    assert missing == []


def test_the_scenario_format_example_plays_as_documented(tmp_path):
    text = SCENARIOS_DOC.read_text(encoding="utf-8")
    example = re.search(r"## A file\n\n```json\n(.*?)```", text, re.S).group(1)
    printed = re.search(r"The file above prints.*?```json\n(.*?)```", text, re.S).group(1)
    (tmp_path / "example.json").write_text(example, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "games.engine.scenario", str(tmp_path / "example.json")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert json.loads(run.stdout) == json.loads(printed)


def test_the_readme_links_the_documents_near_the_top():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    top = readme[: readme.index("## The two commands")]
    for document in ("docs/rules.md", "docs/architecture.md"):
        assert document in top and (ROOT / document).is_file()

"""The README tells the truth (issue 23, point 10): every file it names exists, it names no
feature the site lacks, and it lists what a newcomer must install next to the two commands."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# Made by running the site, or outside the repository on purpose.
GENERATED = (
    ".run",
    ".venv",
    "staticfiles",
    "db.sqlite3",
    "~",
    "/",
    "http",
    "postgres:",
    "redis:",
    "sqlite:",
)
FILE = re.compile(r"^[\w.][\w./<>*+-]*$")


def named_paths() -> set[str]:
    """Words inside `code` spans that look like a file or folder of the repository."""
    found = set()
    for span in re.findall(r"`([^`\n]+)`", README):
        for word in span.split():
            word = word.strip("\"'(),;")
            if word.startswith(GENERATED) or "=" in word or not FILE.match(word):
                continue
            if word.split(".")[0].isupper():  # a placeholder: FILE.json
                continue
            if "/" in word or re.search(r"\.(md|py|html|sh|toml|lock|js|css|json)$", word):
                found.add(word)
    return found


def exists(path: str) -> bool:
    pattern = re.sub(r"<[^>]+>", "*", path).rstrip("/")
    if "/" not in pattern:  # a bare file name: somewhere in the repository
        return any(ROOT.rglob(pattern))
    return any(ROOT.glob(pattern))


def test_every_file_the_readme_names_exists():
    paths = named_paths()
    assert {"requirements.lock", "requirements-dev.lock", "docs/bots.md", ".ci/run"} <= paths
    assert sorted(p for p in paths if not exists(p)) == []


def test_the_readme_names_no_missing_feature():
    # There is no demo banner (make run prints the demo game's link); that the README names no
    # document outside the repository is tests/test_docs.py's (every tracked file).
    assert "banner" not in README.lower()


def test_system_packages_are_listed_next_to_the_two_commands():
    section = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    for package in ("libcairo2", "gettext", "chromium"):
        assert f"`{package}`" in section, package


def test_every_make_target_the_readme_uses_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.MULTILINE))
    used = set(re.findall(r"(?:^|`)make ([a-z][\w-]*)\b", README, re.MULTILINE))
    assert {"run", "test", "lock", "admin"} <= used
    assert used - targets == set()

"""Each mutated module's score from mutmut's results in mutants/ (`make mutants` prints it).

Usage: python scripts/mutants_report.py [games/clock.py | games/engine ...]

A module's score is the share of its *reached* mutants that the tests caught: killed, or
stopped for running too long (a mutant that loops forever is caught too). Mutants no selected
test reaches ("no tests") and those not run yet are counted apart, not in the score. Every
surviving mutant is listed by name: `mutmut show NAME` prints its change; docs/testing.md says
why each that stays is equivalent or accepted.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

MUTANTS = Path("mutants")
# mutmut's exit codes (mutmut/stats.py): what the tests did to each mutant.
CAUGHT = {1: "killed", 3: "killed", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
          255: "timeout", 37: "type check"}  # fmt: skip
SURVIVED = {0: "survived"}
UNREACHED = {5: "no tests", 33: "no tests"}


def module_results(meta: Path) -> dict[str, int | None]:
    return json.loads(meta.read_text())["exit_code_by_key"]


def report(only: list[str]) -> int:
    metas = sorted(MUTANTS.glob("games/**/*.py.meta"))
    if not metas:
        print("No results in mutants/: run `make mutants` first.")
        return 1
    rows, survivors = [], []
    for meta in metas:
        source = str(meta.relative_to(MUTANTS))[: -len(".meta")]
        if only and not any(source == o or source.startswith(o.rstrip("/") + "/") for o in only):
            continue
        counts: Counter[str] = Counter()
        for name, code in module_results(meta).items():
            if code is None:
                counts["not run"] += 1
            elif code in CAUGHT:
                counts["caught"] += 1
            elif code in SURVIVED:
                counts["survived"] += 1
                survivors.append(name)
            elif code in UNREACHED:
                counts["no tests"] += 1
            else:
                counts["suspicious"] += 1
                survivors.append(f"{name} (suspicious: exit code {code})")
        reached = counts["caught"] + counts["survived"] + counts["suspicious"]
        score = f"{100 * counts['caught'] / reached:5.1f} %" if reached else "    -  "
        rows.append((source, score, counts, reached))
    print(f"{'module':34} {'score':>7} {'caught':>7} {'reached':>8} {'survived':>9} "
          f"{'no tests':>9} {'not run':>8}")  # fmt: skip
    for source, score, counts, reached in rows:
        print(
            f"{source:34} {score:>7} {counts['caught']:>7} {reached:>8} "
            f"{counts['survived'] + counts['suspicious']:>9} {counts['no tests']:>9} "
            f"{counts['not run']:>8}"
        )
    if survivors:
        print("\nSurvivors (`mutmut show NAME` prints the change):")
        for name in survivors:
            print(f"  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(report(sys.argv[1:]))

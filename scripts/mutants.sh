#!/usr/bin/env bash
# `make mutants`: mutation testing (mutmut 3, configured in pyproject.toml's [tool.mutmut]) of the
# pure modules: the engine, the clock, the rating maths and the bots' brain, against the fast,
# database-free tests that reach them. `make mutants MODULE=games/clock.py` (a file or a folder
# such as games/engine) tests that part alone. Then prints each module's score and survivors
# (scripts/mutants_report.py); docs/testing.md records them, and why each survivor may stay.
# mutmut keeps its work in mutants/ (not in git) and reuses what is still valid next time.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_venv dev

export DJANGO_ENV=development
# The same examples for every mutant (derandomized), as `make test` runs them.
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"

module="${1:-}"
names=()
if [ -n "$module" ]; then
    [ -e "$module" ] || die "MODULE=$module: no such file or folder"
    dotted="${module%/}"
    dotted="${dotted%.py}"
    dotted="${dotted//\//.}"
    names=("$dotted.*") # mutmut's mutant names: games.clock.x_utc__mutmut_1
fi
# mutmut copies games/ into mutants/ once and afterwards refreshes only the files it mutates
# (those with a .meta beside them): the others, which Django's start imports, are removed here
# so that it copies them afresh, as they are now.
if [ -d mutants/games ]; then
    python - <<'PY'
from pathlib import Path

for path in Path("mutants/games").rglob("*"):
    if path.is_file() and path.suffix not in (".meta", ".spans"):
        if not path.with_name(path.name + ".meta").exists():
            path.unlink()
PY
fi
# Shares the machine: a lower priority, and one worker per core (MUTANTS_JOBS overrides).
jobs="${MUTANTS_JOBS:-$(nproc)}"
say "mutmut run ${names[*]:-(every module)} with $jobs workers"
code=0
nice -n 10 mutmut run --max-children "$jobs" "${names[@]}" || code=$?
python scripts/mutants_report.py ${module:+"$module"}
exit "$code"

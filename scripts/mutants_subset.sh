#!/usr/bin/env bash
# Mutation testing of some modules against a chosen subset of the fast tests, in a copy of the
# committed project (docs/testing.md: "Lower bounds"). Every mutant of the engine reaches every
# engine test, the property tests included: with the full set (`make mutants`) a module takes
# hours here. A mutant the subset kills, the full set kills too, so the score it gives is a lower
# bound of the full one, and its survivors include the full set's.
#
#   scripts/mutants_subset.sh DIR "MODULE ..." "TEST ..." [MUTANT_NAME ...]
#
# DIR: where the copy goes (made from `git archive HEAD` when missing, so that a later run there
# reuses mutmut's results; delete it to start afresh). MODULE: files of games/ to mutate. TEST:
# test files or ids (pytest's syntax). MUTANT_NAME: run just those mutants again (after adding a
# test: copy it into DIR/tests and DIR/mutants/tests first). MUTANTS_JOBS workers (default 1),
# at a lower priority; then the score of each module and its survivors.
#
# The measures of docs/testing.md:
#   scripts/mutants_subset.sh /tmp/mutants-engine \
#     "games/engine/board.py games/engine/setup.py games/engine/view.py games/engine/state.py
#      games/engine/create.py games/engine/cards.py games/engine/scenario.py" \
#     "tests/engine/test_pinned_events.py tests/engine/test_pinned_legal.py
#      tests/engine/test_pinned_refusals.py tests/engine/test_pinned_views.py
#      tests/engine/test_pinned_setup.py tests/engine/test_pinned_create.py
#      tests/engine/test_pinned_rounds.py tests/engine/test_board.py tests/engine/test_cards.py
#      tests/engine/test_scenarios.py tests/engine/test_api.py tests/engine/test_runner.py
#      tests/bots/test_play.py"
#   scripts/mutants_subset.sh /tmp/mutants-brain games/bots/brain.py \
#     "tests/bots/test_play.py tests/bots/test_knowledge.py tests/bots/test_figures.py"
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"
ensure_venv dev

[ $# -ge 3 ] || die "usage: scripts/mutants_subset.sh DIR \"MODULE ...\" \"TEST ...\" [MUTANT ...]"
dir="$1" modules="$2" tests="$3"
shift 3
if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    git archive HEAD | tar -x -C "$dir"
fi
python - "$dir/pyproject.toml" "$modules" "$tests" <<'PY'
import sys
from pathlib import Path

path, modules, tests = Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3].split()
text = path.read_text(encoding="utf-8")
start = text.index("[tool.mutmut]")
end = text.index("\n[", start + 1)


def listed(items):
    return "".join(f'    "{item}",\n' for item in items)


# The whole games in several processes and the simulation commands: seconds per mutant, and
# other tests reach the same code in process.
slow = [
    "tests/bots/test_play.py::test_the_simulation_gives_the_same_figures_over_several_processes",
    "tests/bots/test_play.py::test_bots_play_whole_games_to_the_end",
    "tests/bots/test_play.py::test_the_simulation_command_prints_the_strength_and_balance_tables",
    "tests/bots/test_play.py::test_the_simulation_command_refuses_bad_arguments",
]
section = (
    '[tool.mutmut]\nsource_paths = ["games"]\n'
    f"only_mutate = [\n{listed(modules)}]\n"
    'also_copy = ["saboteur_site", "accounts", "templates", "static", "locale", "manage.py"]\n'
    f"pytest_add_cli_args_test_selection = [\n{listed(tests)}]\n"
    'pytest_add_cli_args = [\n    "-p",\n    "no:cacheprovider",\n'
    + "".join(f'    "--deselect",\n    "{test}",\n' for test in slow)
    + "]\n"
)
path.write_text(text[:start] + section + text[end:], encoding="utf-8")
PY
export DJANGO_ENV=development
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
jobs="${MUTANTS_JOBS:-1}"
cd "$dir"
say "mutmut run in $dir with $jobs workers: $modules"
code=0
nice -n 10 "$ROOT/.venv/bin/mutmut" run --max-children "$jobs" "$@" || code=$?
python "$ROOT/scripts/mutants_report.py" $modules
exit "$code"

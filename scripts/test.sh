#!/usr/bin/env bash
# `make test`: the whole suite against PostgreSQL and Redis with lint, the import contracts and
# the types (mypy) beside its start, then the browser tests with the production suite
# (tests/production) beside them, each in its own pytest process. Exits non-zero if anything
# fails.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

export DJANGO_ENV=development
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/saboteur}"
# The test run's Redis database: it uses only keys of its own there (tests/redis_space.py).
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/9}"
export PYTHONUNBUFFERED=1
# Python keeps the bytecode of what it compiles (__pycache__, which git ignores), whatever the
# shell says: a run starts hundreds of Python processes (pytest's, Celery workers, servers,
# manage.py commands). With PYTHONDONTWRITEBYTECODE=1 (some machines set it), each compiled the
# project from its source again, and each pytest process rewrote every test module's asserts
# again: 13 s of CPU before a pytest process's first test instead of 6, and about 0.4 s more
# for every manage.py command or worker a test starts.
unset PYTHONDONTWRITEBYTECODE
# Hypothesis profile (tests/conftest.py): ci, the same examples every run, unless one is chosen
# (HYPOTHESIS_PROFILE=thorough make test: five times as many, random).
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"

# How long the stage before took (the README's figures come from these lines).
started=$SECONDS
took() {
    say "($1: $((SECONDS - started)) s)"
    started=$SECONDS
}

ensure_venv dev
took "the virtual environment"

# Every run always happens, so one failure does not hide the other's results.
status=0

# Lint, the import contracts and the types run beside the suite's start, their output shown
# after the suite: on their own they kept one core of two busy and the other idle for about
# ten seconds. A failure among them fails `make test` as a failing test does.
lint() {
    say "ruff check"
    ruff check . || return 1
    say "ruff format --check"
    ruff format --check . || return 1
    say "lint-imports (the layer contracts in pyproject.toml)"
    lint-imports || return 1
    say "mypy (with django-stubs; [tool.mypy] in pyproject.toml)"
    mypy || return 1
}
lint_log="$(mktemp -t saboteur-lint.XXXXXX)"
lint_started=$SECONDS
(
    code=0
    lint || code=$?
    say "(lint, import contracts and types: $((SECONDS - lint_started)) s)"
    exit "$code"
) >"$lint_log" 2>&1 &
lint_pid=$!
# Stopped early (Ctrl-C), they stop too.
trap 'kill "$lint_pid" 2>/dev/null || true; rm -f "$lint_log"' EXIT
# One pytest run; its failure is remembered. Exit status 5 is pytest's "no tests collected":
# arguments such as `-k leak` may select none of one run's tests, which is no failure.
run_pytest() {
    local code=0
    "$@" || code=$?
    if [ "$code" -ne 0 ] && [ "$code" -ne 5 ]; then
        status=1
    fi
}
# One pytest process per core and one more, at most four (TEST_PROCESSES overrides; 0 runs them
# in this process): each has its own test database, Redis key prefix and Celery queues
# (tests/redis_space.py), and a process that runs out of tests takes some of another's
# (pytest-xdist's worksteal). The extra process keeps the cores busy while another waits for
# what its test started (a worker, a server, a restarted Redis): with one per core, the cores
# of this 2-core machine stood idle a seventh of the suite's time.
cores="$(nproc 2>/dev/null || echo 2)"
# TEST_PROCESSES if given, else the number asked for; at most four.
processes_for() {
    local n="${TEST_PROCESSES:-$1}"
    printf '%s' "$((n > 4 ? 4 : n))"
}
processes="$(processes_for $((cores + 1)))"
say "Tests (PostgreSQL, Redis, Celery worker; $processes processes)"
run_pytest pytest --ignore=tests/e2e --ignore=tests/production --numprocesses "$processes" \
    --dist worksteal "$@"
took "the suite"

say "Lint, import contracts and types (run beside the suite's start): their output"
run_pytest wait "$lint_pid"
cat "$lint_log"
rm -f "$lint_log"

# The README's production stack (gunicorn, uvicorn, Celery worker and beat, behind one proxy, on
# a database of its own) played through Chromium: its own pytest session (tests/production).
# It mostly waits (its servers starting, beat's minute: a core's worth of CPU at most), so it runs
# beside the browser tests, which leave about a fifth of the cores idle; its output is shown
# after theirs. Each has its own test database, Redis key prefix, queues and ports.
say "Production end-to-end tests (DJANGO_ENV=production), beside the browser tests below"
production_log="$(mktemp -t saboteur-production-tests.XXXXXX)"
DJANGO_ALLOW_ASYNC_UNSAFE=true pytest tests/production "$@" >"$production_log" 2>&1 &
production_pid=$!
# Stopped early (Ctrl-C reaches only the browser tests: a script's background job ignores it),
# the production tests stop too.
trap 'kill "$production_pid" 2>/dev/null || true; rm -f "$production_log"' EXIT

# The browser tests: each process has its own live server, Chromium and test database. They
# wait on the browser and the server much of the time, so two processes on two cores finish them
# sooner (a quarter sooner measured on a busy machine); a third did not (fresh clones: 300 s with
# three, 295 s with two: its Chromium and live server take what the waiting leaves), so one
# per core.
browser_processes="$(processes_for "$cores")"
say "Browser tests (Chromium; $browser_processes processes)"
DJANGO_ALLOW_ASYNC_UNSAFE=true run_pytest pytest tests/e2e --numprocesses "$browser_processes" \
    --dist worksteal "$@"
took "the browser tests"

# Their exit status counted as any pytest run's (``wait`` gives it).
run_pytest wait "$production_pid"
say "Production end-to-end tests: their output"
cat "$production_log"
took "the production tests, after the browser tests"

if [ "$status" -ne 0 ]; then
    say "FAILED: see the pytest output above"
fi
exit "$status"

# Shared helpers for the scripts behind make run, test, admin and lock (sourced, not executed).
# Finds a Python >= 3.12, makes .venv and installs the project into it when needed.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
LOCK="$ROOT/requirements.lock"          # what the site needs: `make run`
DEV_LOCK="$ROOT/requirements-dev.lock"  # that, plus the test and benchmark tools: `make test`

# The address to link to for a runserver address: "8123", "0.0.0.0:8123" or "host:8123".
site_url_for() {
    local addr="$1" host port
    case "$addr" in
        *:*) host="${addr%:*}" port="${addr##*:}" ;;
        *) host="127.0.0.1" port="$addr" ;;
    esac
    case "$host" in
        "" | 0.0.0.0 | "[::]") host="127.0.0.1" ;;
    esac
    printf 'http://%s:%s' "$host" "$port"
}

# `make run` notes here, while it serves, its process id and the address it links to: `make admin`
# run in another terminal, without make run's RUN_ADDR, must still print where it serves.
SERVING="$ROOT/.run/serving"

record_serving() { printf '%s %s\n' "$$" "$SITE_URL" >"$SERVING"; }

forget_serving() {
    local pid url
    if [ -f "$SERVING" ] && read -r pid url <"$SERVING" && [ "$pid" = "$$" ]; then
        rm -f "$SERVING"
    fi
}

# The address the `make run` serving now from this folder links to, or nothing when none does
# (a record left by a run that was killed names a process that is gone, or another program).
serving_site_url() {
    local pid url
    [ -f "$SERVING" ] && read -r pid url <"$SERVING" || return 0
    case "$(ps -o args= -p "$pid" 2>/dev/null)" in
        *run.sh*) printf '%s' "$url" ;;
    esac
}

# The environment of `make run` (and, with `beside`, of `make admin` beside it): development
# mode, SQLite, a SQLite file as Celery's broker, email written to .run/mail/. Values already set
# win, except Redis and the broker: run mode has no servers to depend on. Sets HOST_PORT, the
# address runserver serves. `beside`: given neither RUN_ADDR nor SITE_URL, the links lead where
# the `make run` serving now serves (it may have been started with its own RUN_ADDR).
run_mode_env() {
    export DJANGO_ENV="${DJANGO_ENV:-development}"
    export DJANGO_DEBUG="${DJANGO_DEBUG:-1}"
    unset REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND
    # kombu's SQLAlchemy transport on a SQLite file (saboteur_site/celery.py), not its filesystem
    # transport, the default without Redis: under load that one read a message file before its
    # writer had filled it, and the worker died of the JSONDecodeError (docs/soak.md).
    export CELERY_BROKER_URL="sqla+sqlite:///$ROOT/.run/broker.sqlite3"
    export DATABASE_URL="${DATABASE_URL:-sqlite:///$ROOT/db.sqlite3}"
    export EMAIL_BACKEND="${EMAIL_BACKEND:-django.core.mail.backends.filebased.EmailBackend}"
    export EMAIL_FILE_PATH="${EMAIL_FILE_PATH:-$ROOT/.run/mail}"
    HOST_PORT="${RUN_ADDR:-127.0.0.1:8000}"
    if [ "${1:-}" = beside ] && [ -z "${RUN_ADDR:-}${SITE_URL:-}" ]; then
        SITE_URL="$(serving_site_url)"
    fi
    # Emails and the links printed at start lead to the address the site is served on.
    export SITE_URL="${SITE_URL:-$(site_url_for "$HOST_PORT")}"
}

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Prints the path of a working Python >= 3.12, or fails with a clear message.
find_python() {
    local candidates=(python3.13 python3.12)
    local p
    # Newest first.
    while IFS= read -r p; do
        [ -x "$p" ] && candidates+=("$p")
    done < <(ls -d "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV)
    candidates+=(python3)
    for p in "${candidates[@]}"; do
        # A pyenv shim may exist but refuse to run; actually run each candidate.
        if command -v "$p" >/dev/null 2>&1 &&
            "$p" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1; then
            command -v "$p"
            return 0
        fi
    done
    die "no Python >= 3.12 found (tried python3.13, python3.12, ~/.pyenv/versions/3.12+, python3). Install Python 3.12 or newer."
}

# What an install from a lock depends on: pyproject.toml and the lock files it reads.
lock_digest() {
    cat "$ROOT/pyproject.toml" "$@" | sha256sum | cut -d' ' -f1
}

# The exact files of a lock (their hashes checked), then the project, into .venv. With uv (from
# PyPI into .venv, as `make lock` has it), which installs and compiles the 150 packages in about
# ten seconds; pip took thirty, most of them reading every release of each package on PyPI's
# index pages. Should uv fail (it reads PyPI directly, not pip's configuration), pip does it.
install_lock() {
    local lock="$1" python="$VENV/bin/python"
    if "$python" -m pip install --quiet --disable-pip-version-check "uv>=0.9,<1" &&
        "$VENV/bin/uv" pip install --quiet --python "$python" --compile-bytecode \
            --require-hashes --no-deps -r "$lock" &&
        "$VENV/bin/uv" pip install --quiet --python "$python" --compile-bytecode \
            --no-deps -e "$ROOT"; then
        return 0
    fi
    say "uv could not install $(basename "$lock"); pip installs it instead"
    "$python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$python" -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps \
        -r "$lock"
    "$python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT"
}

# `ensure_venv site` (make run) or `ensure_venv dev` (make test): creates .venv if missing and
# installs the exact versions, with hashes, of requirements.lock (the site's packages) or of
# requirements-dev.lock (the same versions plus pytest, Playwright, Locust...; both made from
# pyproject.toml's ranges by `make lock`), then the project itself. Skipped when nothing changed
# since the last install; a venv with the dev tools serves `make run` too.
ensure_venv() {
    local kind="${1:-site}" lock want have=""
    case "$kind" in
        site) lock="$LOCK" want="$(lock_digest "$LOCK")" ;;
        dev) lock="$DEV_LOCK" want="$(lock_digest "$LOCK" "$DEV_LOCK")" ;;
        *) die "ensure_venv: 'site' or 'dev', not '$kind'" ;;
    esac
    if [ ! -x "$VENV/bin/python" ]; then
        local py
        py="$(find_python)"
        say "Creating .venv with $py ($("$py" --version 2>&1))"
        "$py" -m venv "$VENV"
    fi
    [ -f "$VENV/.installed-$kind.sha256" ] && have="$(cat "$VENV/.installed-$kind.sha256")"
    if [ "$want" != "$have" ] && [ "$kind" = site ] && [ -f "$VENV/.installed-dev.sha256" ] &&
        [ "$(cat "$VENV/.installed-dev.sha256")" = "$(lock_digest "$LOCK" "$DEV_LOCK")" ]; then
        have="$want" # the dev install holds every package of the site's lock, at its version
    fi
    if [ "$want" != "$have" ]; then
        say "Installing $(basename "$lock") and the project into .venv"
        install_lock "$lock"
        "$VENV/bin/python" -m pip check
        echo "$want" >"$VENV/.installed-$kind.sha256"
    else
        say "Dependencies unchanged since the last install; reusing .venv"
    fi
    export PATH="$VENV/bin:$PATH"
}

# Shared helpers for scripts/run.sh and scripts/test.sh (sourced, not executed).
# Finds a Python >= 3.12, makes .venv and installs the project into it when needed.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
LOCK="$ROOT/requirements.lock"
STAMP="$VENV/.installed-lock.sha256"

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

# The environment of `make run` (and of `make admin` beside it): development mode, SQLite,
# Celery's filesystem broker, email written to .run/mail/. Values already set win, except Redis:
# run mode has no servers to depend on. Sets HOST_PORT, the address runserver serves.
run_mode_env() {
    export DJANGO_ENV="${DJANGO_ENV:-development}"
    export DJANGO_DEBUG="${DJANGO_DEBUG:-1}"
    unset REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND
    export DATABASE_URL="${DATABASE_URL:-sqlite:///$ROOT/db.sqlite3}"
    export EMAIL_BACKEND="${EMAIL_BACKEND:-django.core.mail.backends.filebased.EmailBackend}"
    export EMAIL_FILE_PATH="${EMAIL_FILE_PATH:-$ROOT/.run/mail}"
    HOST_PORT="${RUN_ADDR:-127.0.0.1:8000}"
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

# Creates .venv if missing and installs the locked dependencies (requirements.lock: exact
# versions with hashes, made from pyproject.toml's ranges by `make lock`) and the project itself,
# unless neither pyproject.toml nor the lock file has changed since the last successful install.
ensure_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        local py
        py="$(find_python)"
        say "Creating .venv with $py ($("$py" --version 2>&1))"
        "$py" -m venv "$VENV"
    fi
    local want have=""
    want="$(cat "$ROOT/pyproject.toml" "$LOCK" | sha256sum | cut -d' ' -f1)"
    [ -f "$STAMP" ] && have="$(cat "$STAMP")"
    if [ "$want" != "$have" ]; then
        say "Installing the locked dependencies and the project into .venv"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
            --require-hashes --no-deps -r "$LOCK"
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -e "$ROOT"
        "$VENV/bin/python" -m pip check
        echo "$want" >"$STAMP"
    else
        say "Dependencies unchanged since the last install; reusing .venv"
    fi
    export PATH="$VENV/bin:$PATH"
}

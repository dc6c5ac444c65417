#!/usr/bin/env bash
# Lighthouse scores of the home page ("My games"), the lobby and a game page, logged in as the demo
# player ann, in Debian's chromium: performance, accessibility, best practices (the median of
# --runs runs, Lighthouse's default mobile emulation). Not part of `make test`: scores move with
# the machine's load; docs/web-performance.md keeps the figures.
#
#   bash bench/lighthouse.sh              # this checkout
#   bash bench/lighthouse.sh --ref main   # another commit (exported to a temporary folder)
#
# Lighthouse comes from the npm registry into .run/lighthouse/ the first time. The site runs on
# SQLite in a temporary folder with the demo data of `make run` (no PostgreSQL or Redis needed).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$ROOT"

REF=""
RUNS=3
PORT="${LIGHTHOUSE_PORT:-8765}"
while [ $# -gt 0 ]; do
    case "$1" in
        --ref) REF="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        *) die "unknown argument: $1 (use --ref REF, --runs N)" ;;
    esac
done

ensure_venv
LIGHTHOUSE="$ROOT/.run/lighthouse/node_modules/.bin/lighthouse"
if [ ! -x "$LIGHTHOUSE" ]; then
    say "Installing Lighthouse into .run/lighthouse/"
    npm install --prefix "$ROOT/.run/lighthouse" --no-audit --no-fund --silent lighthouse@12
fi
export CHROME_PATH="${CHROME_PATH:-/usr/bin/chromium}"

WORK="$(mktemp -d)"
SERVER=""
finish() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}
trap finish EXIT

SRC="$ROOT"
LABEL="this checkout ($(git rev-parse --short HEAD))"
if [ -n "$REF" ]; then
    mkdir -p "$WORK/src"
    git archive "$REF" | tar -x -C "$WORK/src"
    SRC="$WORK/src"
    LABEL="$REF ($(git rev-parse --short "$REF"))"
fi

export DJANGO_ENV=development DJANGO_DEBUG=0 PYTHONPATH="$SRC"
export DATABASE_URL="sqlite:///$WORK/db.sqlite3"
export EMAIL_BACKEND=django.core.mail.backends.dummy.EmailBackend
export CELERY_BROKER_DIR="$WORK/broker"
export SITE_URL="http://127.0.0.1:$PORT"
unset REDIS_URL CELERY_BROKER_URL CELERY_RESULT_BACKEND
PY="$VENV/bin/python"
cd "$SRC"
"$PY" manage.py migrate --noinput -v 0
"$PY" manage.py createcachetable
"$PY" manage.py seed_demo >/dev/null
"$PY" manage.py seed_demo_game >/dev/null
read -r _ SESSION GAME < <("$PY" manage.py shell -c "
from importlib import import_module
from django.conf import settings
from django.contrib.auth import get_user_model, BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from games.models import Game
ann = get_user_model().objects.get(username='ann')
store = import_module(settings.SESSION_ENGINE).SessionStore()
store[SESSION_KEY] = str(ann.pk)
store[BACKEND_SESSION_KEY] = 'django.contrib.auth.backends.ModelBackend'
store[HASH_SESSION_KEY] = ann.get_session_auth_hash()
store.save()
print('LOGIN', store.session_key, Game.objects.order_by('pk').last().pk)
" | grep '^LOGIN ')
"$PY" manage.py runserver --noreload "127.0.0.1:$PORT" >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do
    curl -fs -o /dev/null "http://127.0.0.1:$PORT/rules/" && break
    sleep 0.2
done
# Logged in as ann, or the scores would be the login page's.
curl -fs -o /dev/null -H "Cookie: sessionid=$SESSION" "http://127.0.0.1:$PORT/games/$GAME/" ||
    die "the game page does not answer for the demo player"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: sessionid=$SESSION" \
    "http://127.0.0.1:$PORT/games/")" = 200 ] || die "the demo player is not logged in"

say "Lighthouse on $LABEL, $RUNS runs per page"
HEADERS="{\"Cookie\": \"sessionid=$SESSION\"}"
for page in "/" "/games/" "/games/$GAME/"; do
    for run in $(seq "$RUNS"); do
        name="$(echo "$page" | tr '/' '_')-$run.json"
        "$LIGHTHOUSE" "http://127.0.0.1:$PORT$page" --quiet \
            --chrome-flags="--headless=new --no-sandbox --disable-gpu" \
            --only-categories=performance,accessibility,best-practices \
            --extra-headers="$HEADERS" --output=json --output-path="$WORK/$name" || true
    done
done

"$PY" - "$WORK" "$GAME" <<'EOF'
import json
import statistics
import sys
from pathlib import Path

work, game = Path(sys.argv[1]), sys.argv[2]
pages = {"/": "home (My games)", "/games/": "lobby", f"/games/{game}/": "game page"}
categories = ("performance", "accessibility", "best-practices")
print(f"{'page':<18}" + "".join(f"{c:>16}" for c in categories))
for path, label in pages.items():
    scores = {c: [] for c in categories}
    for report in sorted(work.glob(path.replace("/", "_") + "-*.json")):
        data = json.loads(report.read_text())
        for c in categories:
            score = data["categories"].get(c, {}).get("score")
            if score is not None:
                scores[c].append(round(score * 100))
    row = "".join(
        f"{statistics.median(v) if v else '-':>16}" for v in (scores[c] for c in categories)
    )
    print(f"{label:<18}{row}")
EOF

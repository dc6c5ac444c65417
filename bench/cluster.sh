#!/usr/bin/env bash
# A multi-process deployment on this machine, under load (not a test; loopback only).
#
#   bash bench/cluster.sh [INSTANCES] [PLAYERS] [SECONDS]      # defaults: 2 40 60
#
# Starts INSTANCES gunicorn instances (2 gthread workers x 2 threads each) on free ports of
# 127.0.0.1, two Celery workers and one beat, on PostgreSQL (database saboteur_cluster, emptied;
# CLUSTER_DATABASE_URL overrides it) and Redis (database 13, emptied; CLUSTER_REDIS_URL), with
# the production parts on: psycopg's pool, Redis cache and broker, JSON-lines logs. It waits until
# every instance's /health/ answers 200 (database, cache and a Celery worker), then runs Locust
# (bench/locustfile.py: PLAYERS players at tables of 4, for SECONDS, spread over the instances),
# waits for the outbox to drain, and checks the database (bench/cluster.py check). Every process
# it started is stopped on the way out. Logs and Locust's CSV files: $CLUSTER_OUT
# (/tmp/saboteur-cluster).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
INSTANCES="${1:-2}"
PLAYERS="${2:-40}"
SECONDS_="${3:-60}"
OUT="${CLUSTER_OUT:-/tmp/saboteur-cluster}"
[ -x "$ROOT/.venv/bin/python" ] && export PATH="$ROOT/.venv/bin:$PATH"
command -v locust >/dev/null || {
    echo "locust is missing: make test installs it (requirements-dev.lock, the bench extra)" >&2
    exit 2
}

export DJANGO_ENV=development DJANGO_DEBUG=0
export DATABASE_URL="${CLUSTER_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/saboteur_cluster}"
export REDIS_URL="${CLUSTER_REDIS_URL:-redis://127.0.0.1:6379/13}"
export DATABASE_POOL=1 DATABASE_POOL_MIN_SIZE=1 DATABASE_POOL_MAX_SIZE=4
export DJANGO_LOG_FORMAT=json DJANGO_LOG_LEVEL=INFO
export EMAIL_BACKEND=django.core.mail.backends.filebased.EmailBackend
export EMAIL_FILE_PATH="$OUT/mail"
export SITE_URL=http://127.0.0.1

rm -rf "$OUT"
mkdir -p "$OUT/mail"
pids=()
stop_all() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null || true
    done
}
trap stop_all EXIT

free_port() { python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "==> preparing the database and $PLAYERS players"
python bench/cluster.py prepare --players "$PLAYERS" --out "$OUT/players.json"

hosts=()
for i in $(seq 1 "$INSTANCES"); do
    port="$(free_port)"
    gunicorn saboteur_site.wsgi:application --bind "127.0.0.1:$port" --workers 2 \
        --worker-class gthread --threads 2 --timeout 60 --keep-alive 30 \
        >"$OUT/web$i.log" 2>&1 &
    pids+=($!)
    hosts+=("http://127.0.0.1:$port")
done
for i in 1 2; do
    celery -A saboteur_site worker --concurrency 2 -n "cluster$i@%h" --loglevel=info \
        >"$OUT/worker$i.log" 2>&1 &
    pids+=($!)
done
celery -A saboteur_site beat --loglevel=info --schedule "$OUT/beat-schedule" \
    >"$OUT/beat.log" 2>&1 &
pids+=($!)

echo "==> waiting for /health/ on ${hosts[*]}"
for host in "${hosts[@]}"; do
    ok=""
    for _ in $(seq 1 60); do
        if curl -sf "$host/health/?format=json" >"$OUT/health.json"; then ok=1; break; fi
        sleep 1
    done
    [ -n "$ok" ] || { echo "$host/health/ did not answer 200:"; curl -s "$host/health/?format=json"; exit 1; }
done
cat "$OUT/health.json"; echo

echo "==> $PLAYERS players for $SECONDS_ s over $INSTANCES instance(s); load average $(cut -d' ' -f1 /proc/loadavg)"
CLUSTER_PLAYERS="$OUT/players.json" CLUSTER_HOSTS="$(IFS=,; echo "${hosts[*]}")" \
    CLUSTER_ACKS="$OUT/acks.json" \
    locust -f bench/locustfile.py --headless --users "$PLAYERS" --spawn-rate 20 \
    --run-time "${SECONDS_}s" --stop-timeout 15 --csv "$OUT/locust" --only-summary \
    --loglevel WARNING --exit-code-on-error 0 >"$OUT/locust.log" 2>&1 || {
    echo "locust failed:"; tail -20 "$OUT/locust.log"; exit 1; }

echo "==> waiting for the outbox, then checking the database"
python bench/cluster.py check --players "$PLAYERS" --seconds "$SECONDS_" \
    --acks "$OUT/acks.json" --mail "$OUT/mail" --locust-csv "$OUT/locust_stats.csv" \
    --label "$INSTANCES gunicorn instance(s) x 2 workers x 2 threads, 2 Celery workers, 1 beat"

#!/usr/bin/env bash
# `make run`: the site on http://127.0.0.1:8000 with a real Celery worker and beat,
# SQLite, an embedded broker (.run/broker.sqlite3) and email written to .run/mail/.
# runserver serves for as long as the script runs; the worker is restarted when it dies.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$ROOT"

# Run mode has no servers to depend on: SQLite, a SQLite file as broker, file mail (lib.sh).
run_mode_env
export PYTHONUNBUFFERED=1

ensure_venv site
mkdir -p .run/mail .run/logs

# Push notifications: a VAPID key pair made once under .run/ (production sets its own).
if [ -z "${VAPID_PRIVATE_KEY:-}" ]; then
    python manage.py vapid_keys .run/vapid/private_key
    VAPID_PRIVATE_KEY="$(cat .run/vapid/private_key)"
    export VAPID_PRIVATE_KEY
fi

# The migrations, the cache's table, the demo players and their game, in one Django start-up
# (games/management/commands/run_prepare.py), each printing what it prints alone.
python manage.py run_prepare

# Each child runs in its own process group (setsid), so that the terminal's Ctrl-C reaches this
# script alone and the stopping is done in order, here: Celery's main process gets TERM alone (it
# then shuts its pool and beat down in order; signalling them all at once can hang it), runserver
# and the SMTP server get it as whole groups (runserver's autoreloader child survives its parent
# otherwise). Whatever is still running STOP_GRACE seconds later is killed, group and all: all is
# over within about STOP_GRACE + 0.5 seconds (issue 47: within 5 s).
STOP_GRACE=3
worker_pid=""
server_pid=""
smtp_pid=""
sleeper="" # the pause before a restart, when the worker restarts too often (below)

# The time as microseconds since the epoch (bash >= 5, like `wait -n -p` below).
now_us() { local t="${EPOCHREALTIME/[.,]/}"; printf '%s' "$((10#$t))"; }

# Waits until none of these processes runs (bash reaps its children as they end) or the clock
# reaches the deadline (microseconds).
wait_for_end() {
    local deadline="$1" pid
    shift
    for pid in "$@"; do
        while kill -0 "$pid" 2>/dev/null && [ "$(now_us)" -lt "$deadline" ]; do
            sleep 0.1
        done
    done
}

cleanup() {
    local status="${1:-0}"
    # A second Ctrl-C, or the TERM `make` passes on, must not cut the stopping short: caught by a
    # handler that does nothing, not ignored (trap ''), because an ignored signal stays ignored
    # in every process started afterwards (the 20-second watchdog that once killed what was left
    # could not be cancelled, and Ctrl-C took 20 s: issue 47). No watchdog now: the deadline is
    # kept here, between short sleeps.
    trap ':' INT TERM
    trap - EXIT
    say "Stopping"
    [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true
    local pid groups=()
    for pid in $worker_pid $server_pid $smtp_pid; do
        groups+=("$pid")
    done
    [ -z "$worker_pid" ] || kill -TERM "$worker_pid" 2>/dev/null || true
    for pid in $server_pid $smtp_pid; do
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    local deadline=$(($(now_us) + STOP_GRACE * 1000000))
    wait_for_end "$deadline" "${groups[@]}"
    # What is left in their groups (a leader still stopping, a pool process, a reloader child)
    # gets TERM and half a second, then whatever is still there is killed.
    for pid in "${groups[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
    deadline=$(($(now_us) + 500000))
    for pid in "${groups[@]}"; do
        while kill -0 -- "-$pid" 2>/dev/null && [ "$(now_us)" -lt "$deadline" ]; do
            sleep 0.1
        done
        kill -KILL -- "-$pid" 2>/dev/null || true
    done
    forget_serving
    exit "$status"
}
trap 'cleanup 0' INT TERM
trap 'cleanup $?' EXIT

# A line in the terminal and in the worker's log (bench/soak.py counts the restarts there).
note() {
    say "$*"
    printf '[%s] run.sh: %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S')" "$*" >>.run/logs/celery.log
}

start_worker() {
    setsid celery -A saboteur_site worker --beat --loglevel=info --concurrency=2 \
        --schedule="$ROOT/.run/celerybeat-schedule" >>.run/logs/celery.log 2>&1 &
    worker_pid=$!
}

say "Starting the Celery worker and beat (logs: .run/logs/celery.log)"
start_worker

# Replies to the game emails (README "Answering the emails"): a local SMTP server on loopback.
say "Taking replies to the emails by SMTP on ${INBOUND_SMTP_ADDR:-127.0.0.1:8025} (logs: .run/logs/inbound.log)"
setsid python manage.py inbound_smtp >>.run/logs/inbound.log 2>&1 &
smtp_pid=$!

say "Serving $SITE_URL/ (mail goes to .run/mail/; Ctrl-C stops everything)"
setsid python manage.py runserver "$HOST_PORT" &
server_pid=$!
record_serving # for `make admin` beside it (lib.sh)

# Like a supervisor: a worker that dies is started again and runserver keeps serving (the open
# pages keep working; tasks sent meanwhile wait in the broker, and beat's minute sweep replays
# what a dead worker had taken: bot moves, emails). At most RESTARTS_PER_WINDOW restarts in
# RESTART_WINDOW seconds: a worker that cannot start is retried at that pace, not in a loop.
# When runserver stops, everything stops; Ctrl-C stops everything.
RESTARTS_PER_WINDOW=5
RESTART_WINDOW=300
restarts=() # when the recent restarts happened (seconds since the epoch)
while true; do
    ended=""
    status=0
    wait -n -p ended "$worker_pid" "$server_pid" || status=$?
    if [ "$ended" = "$server_pid" ]; then
        note "runserver exited (status $status); stopping everything"
        cleanup "$status"
    fi
    [ "$ended" = "$worker_pid" ] || continue # not one of ours (cannot happen), wait again
    note "the Celery worker (pid $worker_pid) exited with status $status"
    # What is left of it (the pool's children, the embedded beat) must not outlive it: two beats
    # would send every sweep twice.
    kill -TERM -- "-$worker_pid" 2>/dev/null || true
    sleep 1
    kill -KILL -- "-$worker_pid" 2>/dev/null || true
    now="$(date +%s)"
    recent=()
    for at in "${restarts[@]}"; do
        if [ $((now - at)) -lt "$RESTART_WINDOW" ]; then recent+=("$at"); fi
    done
    restarts=("${recent[@]}")
    if [ "${#restarts[@]}" -ge "$RESTARTS_PER_WINDOW" ]; then
        delay=$((restarts[0] + RESTART_WINDOW - now))
        note "the worker restarted $RESTARTS_PER_WINDOW times in ${RESTART_WINDOW}s; next try in ${delay}s (runserver keeps serving)"
        # Interruptible (Ctrl-C) and watching runserver meanwhile.
        sleep "$delay" &
        sleeper=$!
        ended=""
        wait -n -p ended "$sleeper" "$server_pid" || status=$?
        if [ "$ended" = "$server_pid" ]; then
            note "runserver exited (status $status); stopping everything"
            cleanup "$status"
        fi
        sleeper=""
        now="$(date +%s)"
        restarts=("${restarts[@]:1}")
    fi
    restarts+=("$now")
    start_worker
    note "the Celery worker restarted (pid $worker_pid; restart ${#restarts[@]} in the last ${RESTART_WINDOW}s)"
done

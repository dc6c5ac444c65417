"""The Python half of ``bench/cluster.sh`` (not a test).

``prepare``: create, migrate and empty the cluster's database, empty its Redis database, make the
players (verified addresses, logged-in sessions) and write them for the Locust players.

``check``: once the load has stopped and the outbox is drained, check the database and print the
report: per game, move numbers 1..N and ``version`` N, replay equal to the snapshot, the log's
moves exactly those the players were told were made; every due notice handled (none pending),
as many emails written as notices marked sent (none twice); then requests, p95 latencies and
moves per second from Locust's statistics. Exits non-zero on any violation.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def setup() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")
    django.setup()


def prepare(args) -> None:
    os.environ["BENCH_DATABASE_URL"] = os.environ["DATABASE_URL"]
    from bench import harness

    harness._create_database()
    setup()
    from django.core.cache import cache
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)
    cache.clear()
    import redis

    redis.Redis.from_url(os.environ["REDIS_URL"]).flushdb()
    players = []
    for n in range(args.players):
        user = harness.make_user(f"player{n}")
        players.append({"name": user.display_name, "session": harness.session_cookie(user)})
    Path(args.out).write_text(json.dumps({"csrf": harness.CSRF_TOKEN, "players": players}))


def wait_for_outbox(timeout: float) -> int:
    """Wait until no notice that is due is still pending (the workers and beat's sweep)."""
    from django.utils import timezone

    from games.models import Notice

    deadline = time.monotonic() + timeout
    while True:
        pending = Notice.objects.filter(status="pending", due_at__lte=timezone.now()).count()
        if pending == 0 or time.monotonic() > deadline:
            return pending
        time.sleep(2)


def emails_written(folder: Path) -> int:
    return sum(
        1
        for path in folder.glob("*.log")
        for line in path.read_text(errors="replace").splitlines()
        if line.startswith("Message-ID:")
    )


def check(args) -> int:
    setup()
    from bench.load import Stats, check_database
    from games.models import Notice

    stats = Stats()
    acked = json.loads(Path(args.acks).read_text())
    for game_id, keys in acked.items():
        stats.acknowledged[int(game_id)] = set(keys)
    pending = wait_for_outbox(args.outbox_timeout)
    if pending:
        stats.violation(f"{pending} due notices still pending {args.outbox_timeout:g} s after")
    summary = check_database(stats)
    if summary["moves"] == 0:
        stats.violation("no move was played")
    notices = Counter(Notice.objects.values_list("status", flat=True))
    written = emails_written(Path(args.mail))
    if written != notices["sent"]:
        stats.violation(f"{notices['sent']} notices marked sent but {written} emails written")

    rows = list(csv.DictReader(open(args.locust_csv)))  # noqa: SIM115
    by_name = {row["Name"]: row for row in rows}
    total = by_name.get("Aggregated", {})
    failures = sum(int(row["Failure Count"]) for row in rows if row["Name"] != "Aggregated")
    if failures:
        stats.violation(f"{failures} failed requests (see Locust's failures CSV)")
    moves = int(by_name.get("move", {}).get("Request Count", 0))
    print(
        f"\n{args.label}: {args.players} players for {args.seconds:g} s; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"games: {summary['running']} running, {summary['finished']} finished, "
        f"{summary['lobby']} in the lobby; {summary['moves']} moves in the log "
        f"({summary['moves'] / args.seconds:.1f} moves/s; {moves} move requests answered)"
    )
    print(f"notices: {dict(notices)}; emails written: {written}")
    print(f"{'request':<22}{'count':>7}{'req/s':>8}{'p50 ms':>8}{'p95 ms':>8}{'fail':>6}")
    for row in rows:
        print(
            f"{row['Name']:<22}{int(row['Request Count']):>7}"
            f"{float(row['Requests/s']):>8.1f}{row['50%']:>8}{row['95%']:>8}"
            f"{int(row['Failure Count']):>6}"
        )
    rate = float(total.get("Requests/s", 0))
    print(f"total: {total.get('Request Count')} requests, {rate:.1f}/s")
    if stats.violations:
        print("VIOLATIONS:")
        for violation in stats.violations[:20]:
            print(f"  {violation}")
        return 1
    print(
        "checks: move numbers 1..N, version = N, replay = snapshot, acknowledged moves = log, "
        "no failed request, every due notice sent once: all passed"
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare")
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--out", required=True)
    c = commands.add_parser("check")
    for name in ("--acks", "--mail", "--locust-csv", "--label"):
        c.add_argument(name, required=True)
    c.add_argument("--players", type=int, required=True)
    c.add_argument("--seconds", type=float, required=True)
    c.add_argument("--outbox-timeout", type=float, default=90.0)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())

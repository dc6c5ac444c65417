"""The load balancer's health endpoint, and one JSON log line per request and per task."""

import json
import logging
import os
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Notice
from games.play.lobby import game_create
from games.tasks import send_notice
from saboteur_site.celery import app as celery_app
from tests.redis_space import forget_queue, own_queue
from tests.tasks.test_worker import celery_worker, wait_for_log
from tests.web.test_settings_guard import production_env, run_manage

pytestmark = pytest.mark.django_db(transaction=True)


def health(client):
    response = client.get("/health/?format=json")
    return response.status_code, response.json()


def by_check(results: dict) -> dict:
    return {name.split("(")[0]: value for name, value in results.items()}


def test_health_fails_while_no_celery_worker_answers(client):
    status, results = health(client)
    checks = by_check(results)
    assert checks["Database"] == "OK" and checks["Cache"] == "OK"
    assert checks["Ping"] != "OK"
    assert status == 503


def test_health_in_a_browser_is_the_packages_status_page(client):
    """django-health-check is no installed app (saboteur_site/settings.py, HEALTH_FILES): its
    page for a browser still finds its template, and names each check."""
    response = client.get("/health/", HTTP_ACCEPT="text/html")
    assert response.status_code == 503  # no worker answers here
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "System status" in page and "Database" in page and "Ping" in page


def test_health_is_ok_with_database_cache_and_a_worker(client, tmp_path, settings):
    # The ping reaches every worker of the broker's database; this one consumes a queue of its
    # own, so that it takes no task of anyone else using the database (tests/redis_space.py).
    # The check also wants a worker for the site's queue: for this test, that queue.
    queue = own_queue()
    log_path = tmp_path / "worker.log"
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    saved, celery_app.conf.task_default_queue = celery_app.conf.task_default_queue, queue
    try:
        with celery_worker(log_path, queue=queue, DATABASE_URL=database):
            wait_for_log(log_path, "ready.")
            status, results = health(client)
    finally:
        celery_app.conf.task_default_queue = saved
        forget_queue(settings.CELERY_BROKER_URL, queue)
    assert status == 200, results
    assert set(by_check(results)) == {"Database", "Cache", "Ping", "WebPush"}
    assert set(results.values()) == {"OK"}


def test_health_finds_our_worker_among_those_of_another_site_on_the_same_redis(
    client, tmp_path, settings
):
    """The package's check asked the first worker to answer a ping, whatever its queues: with
    another site's (or test run's) worker on the same Redis database answering first, a site
    whose worker was up answered 503 ("No worker for Celery task queue ...")."""
    ours, theirs = own_queue(), own_queue()
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    saved, celery_app.conf.task_default_queue = celery_app.conf.task_default_queue, ours
    try:
        with celery_worker(tmp_path / "theirs.log", queue=theirs, DATABASE_URL=database):
            wait_for_log(tmp_path / "theirs.log", "ready.")
            status, results = health(client)
            assert status == 503 and "No worker for Celery task queue" in str(results)
            with celery_worker(tmp_path / "ours.log", queue=ours, DATABASE_URL=database):
                wait_for_log(tmp_path / "ours.log", "ready.")
                answers = [health(client) for _ in range(6)]
    finally:
        celery_app.conf.task_default_queue = saved
        for queue in (ours, theirs):
            forget_queue(settings.CELERY_BROKER_URL, queue)
    assert [status for status, _results in answers] == [200] * 6, answers


def test_health_reaches_the_site_over_plain_http_in_production():
    # SECURE_SSL_REDIRECT must not send the load balancer's probe to HTTPS.
    code = (
        "from django.test import Client; "
        "print(Client().get('/health/', HTTP_HOST='saboteur.example').status_code); "
        "print(Client().get('/games/', HTTP_HOST='saboteur.example').status_code)"
    )
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    result = run_manage(["shell", "-c", code], **production_env(DATABASE_URL=database))
    assert result.returncode == 0, result.stderr
    health_status, lobby_status = result.stdout.split()[-2:]
    assert lobby_status == "301"
    assert health_status == "503"  # answered (no worker here), not redirected


def json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_production_logs_one_json_line_per_request_and_per_task():
    code = (
        "from django.test import Client; from games.tasks import ping; "
        "Client().get('/games/123/', HTTP_HOST='saboteur.example', secure=True); "
        "ping.apply()"
    )
    result = run_manage(["shell", "-c", code], **production_env())
    assert result.returncode == 0, result.stderr
    lines = json_lines(result.stderr)
    requests = [line for line in lines if line["logger"] == "saboteur.request"]
    assert len(requests) == 1, result.stderr
    assert requests[0]["path"] == "/games/123/" and requests[0]["game_id"] == 123
    assert requests[0]["status"] == 302  # to the login page
    assert requests[0]["method"] == "GET" and requests[0]["level"] == "INFO"
    assert requests[0]["duration_ms"] >= 0 and requests[0]["user_id"] is None
    tasks = [line for line in lines if line["logger"] == "saboteur.task"]
    assert [(t["task"], t["state"]) for t in tasks] == [("games.tasks.ping", "SUCCESS")]
    assert "succeeded in" not in result.stderr  # Celery's own line would be a second one


def test_development_logs_text():
    code = "import logging; logging.getLogger('x').warning('plain words')"
    result = run_manage(["shell", "-c", code], DJANGO_ENV="development")
    assert result.returncode == 0, result.stderr
    assert "WARNING x plain words" in result.stderr


def test_a_request_and_a_task_about_a_game_log_its_id(client, make_user, caplog):
    user = make_user("ann")
    client.force_login(user)
    game = game_create(creator=user, name="Logged", ruleset="base", max_seats=3)
    notice = Notice.objects.create(
        key=f"test:{uuid.uuid4().hex}",
        kind=Notice.Kind.ABSENT,
        user=user,
        game=game,
        due_at=timezone.now() - timedelta(minutes=1),
    )
    with caplog.at_level(logging.INFO, logger="saboteur"):
        client.get(f"/games/{game.pk}/")
        send_notice.apply((notice.pk,))
    request_line, task_line = [r for r in caplog.records if r.name.startswith("saboteur.")]
    assert (request_line.game_id, request_line.user_id, request_line.status) == (
        game.pk,
        user.pk,
        200,
    )
    assert (task_line.task, task_line.game_id) == ("games.tasks.send_notice", game.pk)


def test_logs_hide_the_secret_parts_of_paths(client, make_user, caplog):
    """One-tap, invite, unsubscribe and reset links carry their power in the path; neither our
    request line nor Django's own warning may write it to the logs."""
    from saboteur_site.logs import RedactPathParameters

    user = make_user("ann")
    client.force_login(user)
    game = game_create(creator=user, name="Logged", ruleset="base", max_seats=3)
    secret = "s3cr3t-t0ken-value"
    with caplog.at_level(logging.INFO):
        client.get(f"/invite/{game.invite_token}/")
        client.get(f"/tap/{secret}/")
        client.get(f"/unsubscribe/{secret}/")
    redact = RedactPathParameters()
    lines = []
    for record in caplog.records:
        redact.filter(record)
        lines.append(record.getMessage() + " " + str(getattr(record, "path", "")))
    text = "\n".join(lines)
    assert "[hidden]" in text
    assert secret not in text and game.invite_token not in text


def test_health_in_run_mode_leaves_out_the_ping_the_filesystem_broker_cannot_answer(tmp_path):
    """`make run` has a real worker on kombu's filesystem transport, which has no remote
    control: a ping would always time out and call a working site unhealthy."""
    env = {
        "DJANGO_ENV": "development",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'run.sqlite3'}",
        "REDIS_URL": "",
        "CELERY_BROKER_DIR": str(tmp_path / "broker"),
    }
    for command in (["migrate", "--noinput"], ["createcachetable"]):
        assert run_manage(command, **env).returncode == 0
    code = (
        "from django.test import Client; "
        "r = Client().get('/health/', HTTP_ACCEPT='application/json', HTTP_HOST='127.0.0.1'); "
        "print(r.status_code, ' '.join(r.content.decode().split()))"
    )
    result = run_manage(["shell", "-c", code], **env)
    assert result.returncode == 0, result.stderr
    status, _space, body = result.stdout.strip().splitlines()[-1].partition(" ")
    assert status == "200", body
    assert "Ping" not in body and "Database" in body

"""The installable site as production serves it (issue 34): after `collectstatic`, under the
manifest storage (hashed names, WhiteNoise), `/sw.js`, the manifest and the offline page answer
200 and name only files that exist. Development serves the same views from the source folders,
where `/sw.js` worked while production answered 500 ("Missing staticfiles manifest entry for ''").

One fresh process in production mode, with its own STATIC_ROOT, asks the site through Django's
test client over https, as the TLS proxy would.
"""

from __future__ import annotations

import json
import os

import pytest

from tests.collected_static import collected_static
from tests.web.test_settings_guard import production_env, run_manage

pytestmark = pytest.mark.slow  # collectstatic compresses every file (once a run): started first

ASK = """
import json, re
from django.test import Client
client = Client(HTTP_HOST="saboteur.example")
answers = {}
for path in ("/sw.js", "/manifest.webmanifest", "/offline/"):
    response = client.get(path, secure=True)
    answers[path] = {"status": response.status_code, "body": response.content.decode()}
print("ANSWERS " + json.dumps(answers))
"""


@pytest.fixture(scope="module")
def answers(tmp_path_factory):
    root = collected_static(tmp_path_factory)
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    env = production_env(DATABASE_URL=database, DJANGO_STATIC_ROOT=str(root))
    asked = run_manage(["shell", "-c", ASK], **env)
    assert asked.returncode == 0, asked.stderr
    [line] = [line for line in asked.stdout.splitlines() if line.startswith("ANSWERS ")]
    return root, json.loads(line.removeprefix("ANSWERS "))


def test_the_service_worker_manifest_and_offline_page_answer_200_in_production(answers):
    _root, got = answers
    assert {path: answer["status"] for path, answer in got.items()} == {
        "/sw.js": 200,
        "/manifest.webmanifest": 200,
        "/offline/": 200,
    }


def test_the_worker_caches_the_collected_files_by_their_hashed_names(answers):
    root, got = answers
    source = got["/sw.js"]["body"]
    assert 'const STATIC = "/static/";' in source
    start = source.index("const ASSETS = ") + len("const ASSETS = ")
    assets = json.loads(source[start : source.index(";", start)])
    assert "/static/favicon.svg" not in assets  # the hashed name, as the pages link it
    assert any(url.startswith("/static/favicon.") for url in assets)
    for url in assets:
        assert (root / url.removeprefix("/static/")).is_file(), url
    icons = json.loads(got["/manifest.webmanifest"]["body"])["icons"]
    for icon in icons:
        assert (root / icon["src"].removeprefix("/static/")).is_file(), icon

"""gunicorn's settings for the site: its own log lines as JSON, one object a line on stderr, like
every other line of production (``gunicorn --config python:saboteur_site.gunicorn_conf ...``).

gunicorn's master process never imports Django, so the settings' LOGGING does not reach its lines
("Booting worker", "Worker timeout"...): this does. The dictConfig is the one uvicorn reads for
the live streams (``uvicorn --log-config saboteur_site/uvicorn_logging.json``, which takes only
a file), and its formatter is the settings' (a test holds them equal).
"""

import json
from pathlib import Path

logconfig_dict = json.loads((Path(__file__).parent / "uvicorn_logging.json").read_text())

.PHONY: run test

# Serve the site on http://127.0.0.1:8000 with a Celery worker and beat (see README).
run:
	bash scripts/run.sh

# Lint, the whole test suite (PostgreSQL, Redis) and the browser tests.
test:
	bash scripts/test.sh

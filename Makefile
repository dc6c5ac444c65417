.PHONY: run test

# Serve the site on http://127.0.0.1:8000 with a Celery worker and beat (see README).
run:
	bash scripts/run.sh

# Lint, the whole test suite (PostgreSQL, Redis) and the browser tests.
# Extra pytest arguments: make test ARGS="-k leak" (given to both pytest runs).
test:
	bash scripts/test.sh $(ARGS)

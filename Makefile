.PHONY: run test lock admin mutants

# Serve the site on http://127.0.0.1:8000 with a Celery worker and beat (see README).
run:
	bash scripts/run.sh

# Lint, the whole test suite (PostgreSQL, Redis) and the browser tests.
# Extra pytest arguments: make test ARGS="-k leak" (given to each of its three pytest runs).
test:
	bash scripts/test.sh $(ARGS)

# Mutation testing (mutmut) of the engine, the clock, the rating maths and the bots' brain
# against the fast tests that reach them; scores and survivors in docs/testing.md. Hours for the
# whole set: one part at a time with MODULE (a file or a folder): make mutants MODULE=games/clock.py
mutants:
	@bash scripts/mutants.sh "$(if $(filter command line,$(origin MODULE)),$(MODULE))"

# After changing a dependency range in pyproject.toml: pin every package, with hashes, for
# Python 3.12 and newer on any platform (uv from PyPI; run/test install from the lock).
lock:
	bash scripts/lock.sh

# An administrator who can log in at once, in the database of `make run`:
# make admin EMAIL=you@example.com NAME="Your name" (a password is printed; see README).
# Only values given on make's command line: a shell's own EMAIL or NAME must not slip in.
admin:
	@bash scripts/admin.sh "$(if $(filter command line,$(origin EMAIL)),$(EMAIL))" \
		"$(if $(filter command line,$(origin NAME)),$(NAME))"

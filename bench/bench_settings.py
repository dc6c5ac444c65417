"""Settings for the benchmarks only: the site's settings with a URLconf that adds ``bare/``."""

from saboteur_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bench_site"

# The move benchmark's four players move as fast as the machine lets them, far beyond what the
# site lets one player send (saboteur_site/ratelimits.py): every POST is still counted (its cost
# is measured), against limits a thousand times higher.
RATE_LIMITS_SCALE = 1000

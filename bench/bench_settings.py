"""Settings for the benchmarks only: the site's settings with a URLconf that adds ``bare/``."""

from saboteur_site.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bench_site"

"""``python -m games.engine.fairness DEAL.json``: the offline checker (docs/fairness.md)."""

from games.engine.fairness import main

raise SystemExit(main())

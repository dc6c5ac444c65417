"""The game of Saboteur on the web, as a house of layers that import only downwards.

From the top: ``web`` (views, forms, URLs), ``admin``, ``templatetags``, ``management`` and
``tasks`` (thin Celery entry points) -> ``moderation`` (the admins' actions) -> ``play`` (the
only code that changes games) -> ``outbox`` (which notices, when, and sending them) -> ``read``
(what a viewer may see) -> ``models`` and ``dispatch`` (starting tasks by name) -> ``bots`` (pure
Python, no Django) -> ``ledger`` (the public ledger of what each player was seen doing, pure too)
-> ``engine`` and ``clock`` (the one clock of every deadline, pure too).
The contracts in ``pyproject.toml`` (import-linter) keep it so.
"""

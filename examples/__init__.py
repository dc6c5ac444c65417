"""Programs that use the site's public API (docs/api.md).

- ``bot``: a small bot that plays a practice game to its end (standard library and httpx).
"""

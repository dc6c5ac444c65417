"""The public JSON API under ``/api/v1/`` (issue 54; docs/api.md), built with django-ninja: its
OpenAPI 3 schema at ``/api/v1/openapi.json``, browsable at ``/api/docs`` (the vendored Swagger UI,
no CDN). Thin like the views: every answer is a read of ``games.read`` (the same per-seat view as
the pages) or a service of ``games.play`` (the same move pipeline, refusal codes and messages).

Calls carry a personal access token (``Authorization: Bearer``, ``accounts.tokens``): a
session opens nothing here, so CSRF has nothing to protect. Errors are JSON ``{code, message}``.

- ``app``: the API with all its calls (what the URLs and the docs page serve);
- ``site``: the API object, the token check, scopes, per-token rate limits and the error answers;
- ``schemas``: the shapes of what is sent and answered;
- ``games``: the account, the games, the per-seat view, the legal moves, the log, moves, chat,
  the lobby and the deal documents;
- ``streams``: the NDJSON event streams (per account, per game) on the live machinery;
- ``challenges``: the challenges sent to the caller, accepting or refusing one;
- ``docs``: the browsable documentation page.
"""

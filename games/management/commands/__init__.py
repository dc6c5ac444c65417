"""The games app's ``manage.py`` commands:

- ``draw_cards``: writes ``static/cards.svg``, every card face drawn once;
- ``inbound_smtp``: the local SMTP server of `make run` that takes replies to game emails;
- ``rebuild_ratings``: rebuilds every rating from the stored moves;
- ``run_prepare``: what `make run` does before it starts (migrations, cache table, the demo's
  players and game), in one start-up;
- ``seed_demo_game``: a demo game in progress between the demo players.
"""

"""The games app's ``manage.py`` commands:

- ``draw_cards``: writes ``static/cards.svg``, every card face drawn once;
- ``inbound_smtp``: the local SMTP server of `make run` that takes replies to game emails;
- ``rebuild_ratings``: rebuilds every rating from the stored moves;
- ``seed_demo_game``: a demo game in progress between the demo players.
"""

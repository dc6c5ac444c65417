"""Bots that play Saboteur honestly blind: pure Python like the engine (no Django, I/O or clock).

Public API:

- ``choose_move(view, moves, rng, history=(), seen=None)`` -> one of ``moves``. ``view`` is
  ``engine.view_for(state, seat)``, ``moves`` is ``engine.legal_moves(state, seat)``, ``rng``
  a seeded ``random.Random`` and ``history`` the game's public events (``public_events``),
  oldest first; ``seen`` this round's public ledger (``games.ledger``, which the site keeps
  per game) when the caller has it. A bot sees nothing else: what its seat may not know cannot
  change its move.
- ``public_events(events)`` -> the events everyone saw (``to`` is None), as the bot's memory.

Modules:

- ``brain``: how a bot picks its move: score every legal move from what its seat may know;
- ``simulate``: measuring the bots: seeded games and their win rates per role.
"""

from .brain import choose_move, public_events

__all__ = ["choose_move", "public_events"]

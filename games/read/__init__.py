"""The read side: everything a viewer may see of games, built from the engine's ``view_for``.

The game page and its parts, recaps, replays and "since you were here" (``pages``,
``history``), lists of games and the lobby (``lists``), the move log and the moderators' table
events beside it (``log``, ``table_events``), players' statistics (``stats``), the card art
(``drawing``), learning help (``learn``), a game's clock and "time left" (``clock``, over the
pure ``games.clock``), players' vacations and their balance (``vacations``), the caches they
keep (``invalidation``) and the live channel that tells open pages a game changed (``live``:
Redis pub/sub, no game data). It never writes a game and imports only ``games.models``,
``games.engine``, ``games.clock`` and Django: never the play side, the outbox or moderation.
"""

"""The read side: everything a viewer may see of games, built from the engine's ``view_for``.

It never writes a game and imports only ``games.models``, ``games.ledger``, ``games.engine``,
``games.clock``, the site's helpers and Django: never the play side, the outbox or moderation.

- ``pages``: the pages of one game as one viewer may see them, assembled from its parts;
- ``game_parts``: the game page's parts: the players, the hand, the log, the recaps, the ledger;
- ``bar_part``: the game page's bar: the viewer's decision and how to make it;
- ``maze_part``: the game page's maze: its cells, the legal spots, the last act's marks;
- ``kept``: what is made from frozen data, kept under a digest of that data;
- ``found``: recaps and replay steps kept for a viewer's seat, found without reading the game;
- ``history``: round recaps, the game's end, replays and "since you were here";
- ``lists``: the dashboard, the lobby's open games, games to watch, the awaiting count;
- ``forming``: play now's forming tables as their players see them;
- ``friends``: a player's friends, followers, friends' open games and their challenges;
- ``access``: finding a game a viewer may see, and the cheap questions open pages ask;
- ``log``: the move log in plain words (public events, and private ones to their owner);
- ``table_events``: the moderators' table events as the log shows them;
- ``ledger_words``: the public ledger kept per game and said in words;
- ``suspicions``: private suspicions as the pages show them;
- ``seats``: who sits where, as every page, email and log line names them;
- ``stats``: players' statistics for the public player page;
- ``my_data``: a player's own data for their download (never another's secrets);
- ``ratings``: ratings as players see them, and the leaderboards;
- ``rematch``: what a finished game's page offers: to play again with this table;
- ``deals``: deals anyone can check: the seeds shown and each round's deal document;
- ``drawing``: card art: the cards' faces as SVG, and the sprite of them all;
- ``card_icons``: the action cards' icons and faces;
- ``maze_drawing``: the maze as one SVG picture (for emails);
- ``svg``: the card art's palette and helpers that write one SVG element each;
- ``card_names``: cards' and roles' names in the active language, and a hand's order;
- ``learn``: help for newcomers: what each card and role does, why a card cannot be played;
- ``clock``: a game's clock read from the database, over the pure ``games.clock``;
- ``durations``: durations in words ("just now", "2 days, 3 hours");
- ``vacations``: players' vacations as others may see them;
- ``invalidation``: cache invalidation only: what drops cached reads when games change;
- ``live``: the live channel that tells open pages a game changed (Redis pub/sub, no game data).
"""

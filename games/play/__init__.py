"""The play side: the only code that changes games.

Creating, joining and starting games and invitations (``lobby``), the move pipeline for players,
bots and deadlines (``moves``, ``bot_turns``), chat (``chat``), what a player has seen
(``visits``), one-tap links' moves (``taps``), players' vacations (``vacations``), what a
player's new name or clock does to their games (``profiles``, receiving ``accounts.signals``),
deleting an account (``account_deletion``) and the minute sweep (``sweep``). Every writer
locks the game row first (``locking``); refusals are ``errors.ServiceError``. It writes the
outbox's rows and may import the outbox, the read side, ``games.models``, the engine and the
bots, never moderation, the web or ``games.tasks``.
"""

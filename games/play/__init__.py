"""The play side: the only code that changes games.

Every writer locks the game row first (``locking``); refusals are ``errors.ServiceError``. It
writes the outbox's rows and may import the outbox, the read side, ``games.models``, the engine,
the ledger and the bots, never moderation, the web or ``games.tasks``.

- ``moves``: the move pipeline: the only doors through which a move enters a game;
- ``locking``: the lock every writer takes first, and the checks made under it;
- ``errors``: what the play side answers when it refuses;
- ``lobby``: creating, joining, leaving and starting games, invitations and rematches;
- ``matchmaking``: play now: seating players at forming tables that fit their wish, leaving
  them, starting them when full or at their start time;
- ``challenges``: challenging friends to a game, answering, expiring;
- ``bot_turns``: when a bot decides: asking a worker, its move, the overdue ones;
- ``chat``: the table's chat, and emails to the players a message mentions;
- ``suspicions``: a player's private marks of the other seats, and their note;
- ``visits``: what a player has seen, and taking an absent seat back;
- ``taps``: a one-tap link's move, made once;
- ``replies``: answering a reply to a game email (a move or a chat message);
- ``vacations``: declaring, ending and carrying out players' vacations;
- ``profiles``: a player's profile changed in what their games show or plan by it (it
  receives ``accounts.signals``);
- ``bot_accounts``: making an account a bot account, before it plays any game;
- ``account_deletion``: deleting a player's account, and what it does to their games;
- ``ratings``: writing the ratings, live and as a rebuild;
- ``rating_maths``: the ratings' maths, pure Python;
- ``sweep``: the minute sweep: vacations, deadlines, overdue bots, forming tables, digests, the
  due outbox.
"""

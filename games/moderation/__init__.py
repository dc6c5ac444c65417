"""Moderation: what the admins' tools do to players and games.

Each action writes through the play side's lock (``games.play.locking``), tells the players
through the outbox and leaves a public table event; none reads or returns a running game's
secrets. It may import the play side and everything below it; only the web, the admin and
``accounts``' admin call it.

- ``players``: deactivating, banning and reactivating players, ending their sessions;
- ``tables``: renaming, pausing, resuming, extending and aborting games, handing a seat over,
  sending an email again;
- ``reports``: players' reports, and the moderators' answers to them (dismiss, warn, mute, ban).
"""

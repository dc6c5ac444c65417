"""What ``accounts`` tells the apps above it (``games``), which it never imports.

Both are sent by ``accounts.services`` after the user's row is saved, synchronously: each
receiver runs before ``send`` returns, in the sender's transaction (if any), and an exception
of a receiver reaches the sender, as a direct call would. ``games`` connects its receivers in
``GamesConfig.ready`` (``games.play.profiles``).
"""

from django.dispatch import Signal

# The player's clock changed (time zone, quiet hours or reminders): ``user=``, saved.
clock_changed = Signal()

# The player's display name changed (on their profile or in the admin): ``user=``, saved.
renamed = Signal()

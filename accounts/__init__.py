"""Accounts: players, their profile and devices, signing up and in (django-allauth). It imports
nothing of games (``pyproject.toml``'s ``one-direction`` contract): what an account does to a
player's games (a new name or clock, deleting the account) lives in games.

- ``models``: the user (display name, language, time zone, quiet hours, bot flag...), bans, push
  devices, follows and blocks, API tokens;
- ``relations``: who follows whom (friends) and who keeps away from whom (blocks);
- ``services``: the only code that changes a player's profile;
- ``tokens``: the personal access tokens of the public API: made, listed, revoked, checked;
- ``signals``: what a profile change tells whoever listens (games): a new name, a new clock;
- ``forms``: signing up, the profile, deleting an account;
- ``views``: the profile, push subscriptions, devices, blocking and unblocking, API tokens;
- ``players``: which player a player page shows, and its address;
- ``zones``: time zones by name (pure Python; the games' clock reads them too);
- ``zone_choices``: the time-zone pickers' choices;
- ``urls``: the accounts' addresses;
- ``adapter``: glue between django-allauth and our user model;
- ``middleware``: the user's time zone and language, private pages not stored, devices seen;
- ``names``: display names that cannot pose as someone else's;
- ``languages``: each language by its own name;
- ``devices``: a player's devices for push notifications;
- ``admin``: the users' admin pages;
- ``apps``: the app's configuration;
- ``templatetags``: the languages' list for templates;
- ``management``: ``manage.py`` commands (an admin account, the demo players, VAPID keys).

``migrations`` holds the tables' history.
"""

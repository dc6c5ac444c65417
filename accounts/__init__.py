"""Accounts: players, their profile and devices, signing up and in (django-allauth), and deleting
an account. It uses games only through the doors ``pyproject.toml``'s contracts allow.

- ``models``: the user (display name, language, time zone, quiet hours...), bans, push devices;
- ``services``: the only code that changes a player's profile or deletes an account;
- ``forms``: signing up, the profile, deleting an account;
- ``views``: the profile, push subscriptions, devices, account deletion, the player page;
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

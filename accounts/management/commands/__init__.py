"""The accounts app's ``manage.py`` commands:

- ``admin_create``: an administrator account in one step (``make admin``);
- ``seed_demo``: the demo players ann, bob, cid and dan;
- ``vapid_keys``: the VAPID private key for push notifications, made once.
"""

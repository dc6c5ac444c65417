"""The accounts app's ``manage.py`` commands, in ``commands``."""

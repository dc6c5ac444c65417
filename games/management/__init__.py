"""The games app's ``manage.py`` commands, in ``commands``."""

"""The accounts' template tags:

- ``languages``: ``site_languages``: the site's languages, each by its own name.
"""

#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "saboteur_site.settings")
    from django.core.management import execute_from_command_line

    from saboteur_site.startup import refusals_in_one_line

    with refusals_in_one_line():
        execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

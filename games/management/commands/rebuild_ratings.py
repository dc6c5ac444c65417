"""Rebuild every rating from the stored moves (docs/ratings.md)."""

from django.core.management.base import BaseCommand

from games.play.ratings import ratings_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild every player's rating from the stored moves of every rated game, in the order "
        "the live updates were made (safe while the site runs)."
    )

    def handle(self, *args, **options):
        rebuilt = ratings_rebuild()
        self.stdout.write(
            f"Rebuilt {rebuilt.ratings} ratings from {rebuilt.rounds} rated rounds "
            f"of {rebuilt.games} games."
        )

"""``manage.py draw_cards``: write ``static/cards.svg``, every card face drawn once, which the
game's pages use (games/read/drawing.py). Run it after changing the card art; a test checks that
the file is up to date."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from games.read.drawing import SPRITE, cards_sprite


class Command(BaseCommand):
    help = "Write static/cards.svg, every card face drawn once, from the card art."

    def handle(self, *args, **options):
        path = Path(settings.BASE_DIR) / "static" / SPRITE
        path.write_text(cards_sprite(), encoding="utf-8")
        self.stdout.write(f"{path}: {path.stat().st_size} bytes")

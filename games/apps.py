from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        from saboteur_site import checks  # noqa: F401 - registers the deploy checks

        from .play import profiles  # noqa: F401 - receives accounts' signals (renamed, clock)
        from .read import invalidation  # noqa: F401 - connects the read side's cache invalidation

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

DISPLAY_NAME_MAX_LENGTH = 40


class User(AbstractUser):
    """A player. Others see only ``display_name``; the email address stays private."""

    email = models.EmailField(_("email address"), unique=True)
    display_name = models.CharField(
        _("display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        unique=True,
        help_text=_("The name other players see."),
    )

    REQUIRED_FIELDS = ["email", "display_name"]

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        constraints = [
            # "Ann" and "ann" would be indistinguishable at the table.
            models.UniqueConstraint(
                Lower("display_name"), name="accounts_user_display_name_ci_unique"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.username

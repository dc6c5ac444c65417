from typing import ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as BaseUserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from . import names
from .names import DISPLAY_NAME_MAX_LENGTH


class UserManager(BaseUserManager["User"]):
    def create_superuser(self, username, email=None, password=None, **extra_fields):
        """A superuser (``createsuperuser``) with their address verified, as an account made
        in the admin has: mail goes only to verified addresses, and a seat needs one."""
        from allauth.account.models import EmailAddress  # allauth's models import this one

        user = super().create_superuser(username, email, password, **extra_fields)
        if user.email:
            EmailAddress.objects.update_or_create(
                user=user, email=user.email, defaults={"verified": True, "primary": True}
            )
        return user


class User(AbstractUser):
    """A player. Others see only ``display_name``; the email address stays private."""

    objects: ClassVar[UserManager] = UserManager()
    # The display name as loaded (``from_db``): ``save`` renews the derived key when it changed.
    _stored_display_name: str | None

    email = models.EmailField(_("email address"), unique=True)
    display_name = models.CharField(
        _("display name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        unique=True,
        help_text=_("The name other players see."),
    )
    # The name's TR39 skeleton (accounts.names): look-alike names share it, so it is unique.
    # NULL (not "") while the name is empty, so that nameless rows do not collide.
    display_name_key = models.CharField(  # noqa: DJ001
        max_length=200, unique=True, null=True, editable=False
    )

    # Preferences (the profile page edits them).
    language = models.CharField(
        _("language"), max_length=8, blank=True, choices=settings.LANGUAGES,
        help_text=_("The language of the site and of your emails."),
    )  # fmt: skip
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    email_turns = models.BooleanField(_("email me when it is my turn"), default=True)
    email_reminders = models.BooleanField(_("remind me before my time runs out"), default=True)
    # "N hours before the deadline" (up to three, "8,4,1"); empty: the site's schedule.
    reminder_hours = models.CharField(_("reminders, hours before the deadline"), max_length=20,
                                      blank=True, default="")  # fmt: skip
    email_digest = models.BooleanField(
        _("one daily summary instead of an email per game"), default=False
    )
    email_mentions = models.BooleanField(_("email me when I am mentioned in chat"), default=True)
    email_absent = models.BooleanField(
        _("email me when a player at my table is marked absent"), default=True
    )
    email_hand = models.BooleanField(
        _("show my hand, my role and one-tap moves in emails"), default=True
    )
    quiet_from = models.TimeField(_("quiet hours from"), null=True, blank=True)
    quiet_until = models.TimeField(_("quiet hours until"), null=True, blank=True)
    # Push notifications (accounts.devices): the email of an event a push reached a device in
    # use with waits a while, and is not sent when the player opens the game meanwhile.
    email_waits_for_push = models.BooleanField(
        _("hold emails while push notifications reach me on a device I use"), default=False
    )
    # After a move, go on to the next game that waits for the player's decision.
    next_game_auto = models.BooleanField(
        _("after my move, go to the next game waiting for me"), default=False
    )
    # The first-game guide on the game page, until the player dismisses it (issue 13).
    guide_dismissed = models.BooleanField(_("first-game guide dismissed"), default=False)
    # A bot account (the public API's bot play): set by its owner before it plays any game;
    # shown with a bot mark everywhere and rated in its own pool.
    is_bot = models.BooleanField(_("bot account"), default=False)

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

    @classmethod
    def from_db(cls, db, field_names, values, **kwargs):
        user = super().from_db(db, field_names, values, **kwargs)
        user._stored_display_name = user.__dict__.get("display_name")
        return user

    def save(self, *args, **kwargs):
        # A derived index, not a rule: it must follow every change of the name, from any path
        # (sign-up, profile, admin, management commands). A name saved unchanged keeps its key:
        # a look-alike that older rules let in has none (migration 0005), and saving its owner's
        # password or language must not collide with the name it resembles.
        if self._state.adding or self.display_name != getattr(self, "_stored_display_name", None):
            self.display_name_key = names.skeleton(self.display_name) or None
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "display_name_key"}
        super().save(*args, **kwargs)
        self._stored_display_name = self.display_name

    def clean(self):
        super().clean()
        # Admin forms: the same rules as sign-up and the profile (accounts.names).
        self.display_name = names.normalize_display_name(self.display_name)
        error = names.display_name_error(
            self.display_name,
            exclude_pk=self.pk,
            current=getattr(self, "_stored_display_name", None),
        )
        if error:
            raise ValidationError({"display_name": error})

    def __str__(self) -> str:
        return self.display_name or self.username


class Ban(models.Model):
    """A moderator's ban: who was banned, by whom, when and why (distinct from deactivation)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bans",
        verbose_name=_("player"),
    )  # fmt: skip
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+",
        verbose_name=_("banned by"),
    )  # fmt: skip
    reason = models.TextField(_("reason"))
    created_at = models.DateTimeField(_("banned at"))
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)

    class Meta:
        verbose_name = _("ban")
        verbose_name_plural = _("bans")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.user} ({self.created_at:%Y-%m-%d})"


class PushSubscription(models.Model):
    """One browser of a player that receives push notifications (the Web Push subscription).

    The push service gives the endpoint and the keys its payloads are encrypted to; they belong to
    one user and go when the user removes the device or the push service says they are gone.
    ``device_key`` names this browser in a cookie, so that the site knows when it was last used.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)  # the browser's public key (base64url, 65 bytes)
    auth = models.CharField(max_length=40)  # the shared authentication secret (16 bytes)
    label = models.CharField(_("device"), max_length=80)
    device_key = models.CharField(max_length=40, unique=True)
    created_at = models.DateTimeField(_("added"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"))
    last_push_at = models.DateTimeField(_("last notification"), null=True, blank=True)

    class Meta:
        verbose_name = _("push notification device")
        verbose_name_plural = _("push notification devices")
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.label} ({self.user})"


class Follow(models.Model):
    """One player follows another (friends, issue "finding a table"). The followed player may
    remove it (``accounts.relations.remove_follower``); following is one-way, friends are two."""

    # No index of its own: the constraint accounts_follow_once (follower, followed) begins with it.
    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="following",
        verbose_name=_("follower"), db_index=False,
    )  # fmt: skip
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers",
        verbose_name=_("followed player"),
    )  # fmt: skip
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="accounts_follow_once"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="accounts_follow_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower} → {self.followed}"


class Block(models.Model):
    """One player keeps away from another: the blocked player's chat is hidden for the blocker,
    their mentions send nothing, and the two are never seated together by matchmaking or a
    challenge (``accounts.relations``). The blocked player is never told."""

    # No index of its own: the constraint accounts_block_once (blocker, blocked) begins with it.
    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made",
        verbose_name=_("blocked by"), db_index=False,
    )  # fmt: skip
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received",
        verbose_name=_("blocked player"),
    )  # fmt: skip
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="accounts_block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="accounts_block_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker} ⊘ {self.blocked}"


class ApiToken(models.Model):
    """A personal access token of the public API (``accounts.tokens``): shown to its player once,
    stored only as the SHA-256 of its text (``digest``), with the scopes it was given; revoked
    tokens stay listed (with their last use) until their player deletes the account."""

    class Scope(models.TextChoices):
        READ = "read", _("read my games")
        PLAY = "play", _("play my games")
        CHAT = "chat", _("write in my games' chat")
        BOT = "bot", _("play as a bot account")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens",
        verbose_name=_("player"),
    )  # fmt: skip
    name = models.CharField(_("name"), max_length=60)
    # The first characters of the token (its prefix and four more): enough for its player to
    # tell their tokens apart, nothing to guess the rest with.
    hint = models.CharField(max_length=12, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    scopes = models.JSONField(_("scopes"), default=list)
    created_at = models.DateTimeField(_("made"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)

    class Meta:
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

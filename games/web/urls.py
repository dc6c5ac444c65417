from django.urls import path, re_path

from . import deals, inbound, live, players, signed_links, views
from .api import docs as api_docs
from .api.app import urls as api_urls

urlpatterns = [
    path("", views.home, name="home"),
    # The public API (games/web/api/, docs/api.md): token calls only.
    path("api/v1/", api_urls()),
    path("api/docs", api_docs.api_docs, name="api_docs"),
    path("rules/", views.rules, name="rules"),
    path("games/", views.lobby, name="lobby"),
    path("games/new/", views.game_create, name="game_create"),
    path("games/practice/", views.practice_create, name="practice_create"),
    re_path(r"^leaderboards/(?P<ruleset>base|saboteur2)/$", views.leaderboard, name="leaderboard"),
    path("games/<int:pk>/", views.game_detail, name="game"),
    path("games/<int:pk>/poll/", views.game_poll, name="game_poll"),
    path("games/<int:pk>/live/", live.game_live, name="game_live"),
    path("games/<int:pk>/move/", views.move_create, name="move"),
    path("games/<int:pk>/replay/", views.game_replay, name="game_replay"),
    path("games/<int:pk>/rounds/<int:number>/", views.round_recap, name="round_recap"),
    path("games/<int:pk>/chat/", views.chat_create, name="chat"),
    path("games/<int:pk>/mark/", views.mark_create, name="mark"),
    path("games/<int:pk>/note/", views.note_create, name="note"),
    path("games/<int:pk>/join/", views.seat_join, name="join"),
    path("games/<int:pk>/seed/", views.seed_set, name="seed"),
    path("games/<int:pk>/deals/<int:number>/", deals.deal_check, name="deal_check"),
    path("games/<int:pk>/deals/<int:number>.json", deals.deal_json, name="deal_json"),
    path("games/<int:pk>/leave/", views.seat_leave, name="leave"),
    path("games/<int:pk>/start/", views.game_start, name="start"),
    path("games/<int:pk>/invite/", views.invitation_create, name="invitation_create"),
    path("games/<int:pk>/again/", views.game_rematch, name="rematch"),
    path("invite/<str:token>/", signed_links.invite, name="invite"),
    path("invite/<str:token>/join/", signed_links.invite_accept, name="invite_accept"),
    path("unsubscribe/<str:token>/", signed_links.unsubscribe, name="unsubscribe"),
    path("tap/<str:token>/", signed_links.tap, name="one_tap"),
    re_path(r"^inbound/(?P<provider>mailgun|postmark)/$", inbound.webhook, name="inbound"),
    path("vacation/", views.vacation, name="vacation"),
    path("vacation/end/", views.vacation_end, name="vacation_end"),
    # A player's pages about their games (accounts.urls has the profile and devices).
    path("accounts/delete/", players.account_delete, name="account_delete"),
    path("accounts/bot/", players.bot_account, name="bot_account"),
    path("players/<path:key>/", players.player, name="player"),
]

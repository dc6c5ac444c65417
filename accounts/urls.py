from django.urls import path

from . import views

urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/tokens/", views.api_tokens, name="api_tokens"),
    path("accounts/tokens/<int:pk>/revoke/", views.api_token_revoke, name="api_token_revoke"),
    path("accounts/guide/dismiss/", views.guide_dismiss, name="guide_dismiss"),
    path("accounts/devices/", views.push_subscribe, name="push_subscribe"),
    path("accounts/devices/<int:pk>/remove/", views.device_remove, name="device_remove"),
    path("accounts/blocks/<int:pk>/", views.block_create, name="block"),
    path("accounts/blocks/<int:pk>/remove/", views.block_remove, name="unblock"),
]

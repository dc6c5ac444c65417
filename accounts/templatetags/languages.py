from django import template

from accounts.languages import native_choices

register = template.Library()


@register.simple_tag
def site_languages():
    """The site's languages as (code, own name) pairs."""
    return native_choices()

"""How form fields are drawn: Django's own form templates through Jinja2, which Django ships for
them (``django.forms.renderers.Jinja2``). Under Django's template engine a select's options are one
template include each, and the time zone field has about 600: the profile page took 55 ms of CPU
to draw, 22 ms this way. A widget whose template exists for Django's engine only (the admin's,
``auth/widgets/read_only_password_hash.html``) is drawn by it, as before."""

from django.forms.renderers import DjangoTemplates, Jinja2
from django.template import TemplateDoesNotExist


class FormRenderer(Jinja2):
    fallback = DjangoTemplates()

    def get_template(self, template_name):
        try:
            return super().get_template(template_name)
        except TemplateDoesNotExist:
            return self.fallback.get_template(template_name)

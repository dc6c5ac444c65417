"""Form fields that read numbers the way the URLs and the poll do: ASCII digits only.

Django's ``IntegerField`` reads with ``int()``, which takes other scripts' digits ("١", "１"),
spaces, "+", "_" and "1.0": a move posted with version "١" was taken for version 1. Every whole
number a form reads from a request goes through ``saboteur_site.text.ascii_int`` instead, here.
"""

from __future__ import annotations

from django import forms

from .text import ascii_int


class AsciiIntegerField(forms.IntegerField):
    """An ``IntegerField`` that accepts only ASCII digits (and a leading minus sign); anything
    else is Django's own "Enter a whole number." error, in the request's language."""

    def to_python(self, value):
        if value in self.empty_values:
            return None
        if type(value) is int:  # a form filled in code, not from a request
            return value
        number = ascii_int(value) if isinstance(value, str) else None
        if number is None:
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return number


def ascii_choice(value: str) -> int:
    """``coerce`` for a ``TypedChoiceField`` of numbers: the posted text is one of the choices
    already, read here as the rest of the site reads numbers (raises ``ValueError`` else, which
    the field reports as an invalid choice)."""
    number = ascii_int(str(value))
    if number is None:
        raise ValueError(value)
    return number


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The form's own copy of its choice field ``name``, to set its choices (``form.fields``
    holds plain ``Field``s for the type checker)."""
    field = form.fields[name]
    if not isinstance(field, forms.ChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is not a choice field")
    return field

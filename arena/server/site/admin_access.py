"""What every admin page of the site needs to pass axe-core's accessibility check
(``tests/arena/server/browser/every_page.py``), shared by the site's ``ModelAdmin`` and
inline classes.

Django's admin draws a date and time field as two inputs under one caption that labels
neither (since Django 4.0 a label points at no part of a multi-part widget); each input
here is named by an ``aria-label`` ("Finished: date", "Finished: time"). The site's inlines
are stacked, not tabular: a tabular inline's inputs and its "delete" boxes sit under a
column's heading, which labels none of them. A many-to-many field is the browser's own
list (``filter_horizontal`` off: the admin's two-box widget draws an icon with an
``aria-label`` no element of its kind may have).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.options import BaseModelAdmin
from django.db import models
from django.http import HttpRequest
from django.utils.text import capfirst

__all__ = ["LabelledFields", "label_date_and_time"]


def label_date_and_time(field: forms.Field | None, caption: str) -> None:
    """Name each input of ``field``'s date and time widget by ``caption`` and its part."""
    widget = getattr(field, "widget", None)
    if isinstance(widget, forms.SplitDateTimeWidget):
        for part, input_widget in zip(("date", "time"), widget.widgets, strict=True):
            input_widget.attrs["aria-label"] = f"{caption}: {part}"


class LabelledFields(BaseModelAdmin):  # type: ignore[type-arg]
    """A ``ModelAdmin`` or inline mixin: every date and time field's two inputs named
    (:func:`label_date_and_time`)."""

    def formfield_for_dbfield(
        self, db_field: models.Field[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> forms.Field | None:
        """Django's form field for ``db_field``, its inputs named."""
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        label_date_and_time(field, capfirst(str(db_field.verbose_name)))
        return field

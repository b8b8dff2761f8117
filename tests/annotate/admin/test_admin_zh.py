"""The admin speaks Chinese to a zh-Hans user (issue 20): every registered model's change page
shows its fields' labels and help texts, and its list columns, from the zh-Hans catalogue.

A string counts as untranslated when it reads the same in English and in zh-Hans: either it is
not marked for translation, or the catalogue has no entry for it."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import label_for_field
from django.db import models
from django.urls import reverse
from django.utils import translation
from django.utils.text import capfirst

from annotate import models as m
from tests.annotate.admin.test_admin import _module_rows, data, url  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db

OUR_APPS = {"annotate", "llmjudge", "metrics", "jobs"}
REGISTERED = sorted(
    (model for model in admin.site._registry if model._meta.app_label in OUR_APPS),
    key=lambda model: model.__name__,
)
ZH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


def in_both(text: object) -> tuple[str, str]:
    """`text` as an English and as a zh-Hans user reads it."""
    with translation.override("en"):
        english = str(text)
    with translation.override("zh-hans"):
        chinese = str(text)
    return english, chinese


def untranslated(texts: dict[str, object]) -> list[str]:
    """The entries of `texts` (what -> string) that read the same in both languages."""
    found = []
    for what, text in texts.items():
        english, chinese = in_both(text)
        if english.strip() and english == chinese:
            found.append(f"{what}: {english!r}")
    return found


def own_fields(model: type[models.Model]) -> list[models.Field]:
    return [
        field
        for field in model._meta.get_fields()
        if isinstance(field, models.Field) and not field.auto_created and field.model is model
    ]


def test_every_model_of_ours_in_the_admin_is_checked():
    # The check below would pass vacuously if the admin registered nothing of ours.
    assert {model._meta.app_label for model in REGISTERED} >= {"annotate"}
    assert len(REGISTERED) > 30


@pytest.mark.usefixtures("data")
@pytest.mark.parametrize("model", REGISTERED, ids=lambda model: model.__name__)
def test_the_change_page_shows_labels_and_help_texts_in_chinese(admin_client, model):
    texts: dict[str, object] = {
        "verbose_name": model._meta.verbose_name,
        "verbose_name_plural": model._meta.verbose_name_plural,
    }
    for field in own_fields(model):
        texts[f"{field.name}.verbose_name"] = field.verbose_name
        if field.help_text:
            texts[f"{field.name}.help_text"] = field.help_text
    model_admin = admin.site._registry[model]
    for name in model_admin.list_display:
        texts[f"list_display {name}"] = label_for_field(name, model, model_admin)
    for title, _options in model_admin.fieldsets or ():
        if title:
            texts[f"fieldset {title}"] = title
    for action in model_admin.actions or ():
        if callable(action) and hasattr(action, "short_description"):
            texts[f"action {action.__name__}"] = action.short_description
    assert untranslated(texts) == [], f"{model.__name__}: English left in the zh-Hans admin"

    # ...and what the page shows is that translation.
    response = admin_client.get(url(model, "change", model.objects.first().pk), **ZH_BROWSER)
    assert response.status_code == 200
    assert response.headers["Content-Language"] == "zh-hans"
    html = response.content.decode()
    adminform = response.context["adminform"]
    shown = [*adminform.form.fields, *adminform.readonly_fields]
    with translation.override("zh-hans"):
        for field in own_fields(model):
            if field.name not in shown:
                continue
            assert capfirst(str(field.verbose_name)) in html, (model.__name__, field.name)
            if field.help_text:
                assert str(field.help_text) in html, (model.__name__, field.name)


def test_the_check_catches_a_plain_english_string():
    # A field defined as before issue 20's leftover was fixed: label from its name, help text
    # unmarked. The test above must call it out.
    field = models.IntegerField(help_text="Time the rater took.")
    field.set_attributes_from_name("raters_needed")
    assert untranslated({"label": field.verbose_name, "help": field.help_text}) == [
        "label: 'raters needed'",
        "help: 'Time the rater took.'",
    ]


def test_the_mixed_campaign_error_names_the_fields_in_chinese(admin_client, data):  # noqa: F811
    a, b = data
    response = admin_client.post(
        url(m.Grade, "change", a["grade"].pk),
        {
            "pool_item": a["item"].pk,
            "rater": a["grade"].rater_id,
            "label": b["label"].pk,
            "seconds": "4.5",
            "history-TOTAL_FORMS": "0",
            "history-INITIAL_FORMS": "1",
        },
        **ZH_BROWSER,
    )
    html = response.content.decode()
    assert "必须属于同一个项目" in html
    # The two fields by their Chinese labels (pool item, label), not by attribute names.
    assert (
        "标注池条目, 标签 必须属于同一个项目" in html
        or "标签, 标注池条目 必须属于同一个项目" in html
    )
    assert "pool_item" not in html.split("必须属于同一个项目")[0][-80:]


def test_the_admin_index_names_our_apps_in_chinese(admin_client):
    labels = {model._meta.app_label for model in REGISTERED}
    names = {label: apps.get_app_config(label).verbose_name for label in labels}
    assert untranslated(names) == []
    html = admin_client.get(reverse("admin:index"), **ZH_BROWSER).content.decode()
    with translation.override("zh-hans"):
        for name in names.values():
            assert str(name) in html

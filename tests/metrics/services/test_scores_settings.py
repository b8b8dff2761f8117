"""One validator for the measure settings: the report pages' form, MeasureSettings and the API
accept and refuse exactly the same values, because all three ask ``check_setting``."""

from __future__ import annotations

import pytest
from django.http import QueryDict

from metrics.reports.forms import ScoresForm
from metrics.services.scores import SETTING_CHOICES, MeasureSettings, check_setting

EXPECTED = {
    "gain": ("linear", "exponential"),
    "discount": ("log2", "jarvelin"),
    "ideal": ("judged", "retrieved"),
}
BAD = ("", "cubic", "LOG2", "Judged", "ln")


def test_the_settings_and_their_values():
    assert SETTING_CHOICES == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_the_form_and_the_service_accept_the_same_values(personas, name):
    for value in EXPECTED[name]:
        assert check_setting(name, value) == value
        form = ScoresForm(QueryDict(f"{name}={value}"), campaign=personas.campaign)
        assert form.is_valid(), form.errors
        assert getattr(form.settings, name) == value
    for value in BAD:
        with pytest.raises(ValueError, match=f"{name} must be one of"):
            check_setting(name, value)
        form = ScoresForm(QueryDict(f"{name}={value}"), campaign=personas.campaign)
        assert not form.is_valid()
        with pytest.raises(ValueError, match=f"{name} must be one of"):
            MeasureSettings(**{name: value})


def test_the_form_asks_the_service(personas, monkeypatch):
    """A value the service refuses is refused by the page, even one the select lists."""
    refused = []

    def refuse_exponential(name, value):
        refused.append((name, value))
        if value == "exponential":
            raise ValueError("refused")
        return value

    monkeypatch.setattr("metrics.reports.forms.check_setting", refuse_exponential)
    form = ScoresForm(QueryDict("gain=exponential"), campaign=personas.campaign)
    assert not form.is_valid() and "gain" in form.errors
    assert ("gain", "exponential") in refused

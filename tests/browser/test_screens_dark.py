"""The judging screens in the dark theme (#21): every part with a colour of its own (marked query
words, the sticky answer bars, the intent, snippets and addresses, the banner, a result lit up
with its twin) stays readable when the system asks for dark colours.

Readable means WCAG 2.x's contrast ratio of at least 4.5 between the text's colour and the
background it is drawn on, both taken from the browser's computed style; the ratio is computed
here, from the WCAG formula, not by the page.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Query
from tests.browser.test_screens import (
    DESKTOP,
    SNIPPET,
    graded,
    new_page,
    open_judging,
    open_sxs,
    sxs_world,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The text colour, then the background of the element and of each ancestor up to <html>.
COLOURS_JS = """el => {
  const layers = [];
  for (let e = el; e; e = e.parentElement) layers.push(getComputedStyle(e).backgroundColor);
  return [getComputedStyle(el).color, layers];
}"""


def rgba(css: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def over(top: tuple, below: tuple[float, float, float]) -> tuple[float, float, float]:
    """Alpha compositing of one colour over an opaque one."""
    alpha = top[3]
    return tuple(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], below, strict=True))


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2.x relative luminance of an sRGB colour (0-255 channels)."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(page: Page, selector: str) -> float:
    """The contrast ratio of the first element matching selector against what is under it."""
    text, layers = page.locator(selector).first.evaluate(COLOURS_JS)
    background = (255.0, 255.0, 255.0)  # the canvas under <html>
    for layer in reversed(layers):
        background = over(rgba(layer), background)
    foreground = over(rgba(text), background)
    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_contrast_formula_matches_wcag_reference_values():
    # WCAG's own end points: black on white 21:1, a colour on itself 1:1; #767676 on white is
    # the well-known lightest grey that passes 4.5:1 (4.54).
    assert (luminance((255, 255, 255)) + 0.05) / (luminance((0, 0, 0)) + 0.05) == pytest.approx(21)
    grey = luminance((0x76, 0x76, 0x76))
    assert (1.05) / (grey + 0.05) == pytest.approx(4.54, abs=0.01)


def low_contrast(page: Page, selectors: list[str]) -> dict[str, float]:
    ratios = {selector: round(contrast(page, selector), 2) for selector in selectors}
    return {selector: ratio for selector, ratio in ratios.items() if ratio < 4.5}


def show_banner(page: Page) -> None:
    """The banner of the change and quiz modes, shown on the queue's screen for the check."""
    page.evaluate(
        "() => { const b = document.getElementById('change-banner');"
        " b.hidden = false; b.textContent = 'Your grade: Relevant'; }"
    )


def test_the_judging_screen_is_readable_in_the_dark_theme(
    personas, live_server, browser, artifacts
):
    graded(
        personas.campaign,
        [("kettle descaler", [("Kettle descaler that works", SNIPPET, {})])],
    )
    Query.objects.update(description="Someone wants to descale a kettle at home.")
    page = new_page(browser, DESKTOP)
    page.emulate_media(color_scheme="dark")
    open_judging(page, live_server.url)
    expect(page.locator("#doc-title mark")).to_have_count(2)
    show_banner(page)
    page.locator(".label-button").first.evaluate("b => b.setAttribute('aria-pressed', 'true')")
    page.screenshot(path=str(artifacts / "screens-judge-dark.png"))
    checked = [
        "#query-text",
        "#query-desc-text",
        "#doc-title mark.term",
        "#doc-url",
        "#doc-snippet",
        "#grade-form",  # the sticky bar: its own colour is what is written on it
        ".label-button[aria-pressed=true] .label-name",
        ".label-button .keys",
        "#change-banner",
    ]
    assert low_contrast(page, checked) == {}
    page.context.close()


def test_the_side_by_side_screen_is_readable_in_the_dark_theme(
    personas, live_server, browser, artifacts
):
    sxs_world(personas.campaign, queries=1)
    Query.objects.update(description="Someone wants to descale a kettle at home.")
    page = new_page(browser, DESKTOP)
    page.emulate_media(color_scheme="dark")
    open_sxs(page, live_server.url)
    show_banner(page)  # before pointing: it moves the lists down
    shared = page.locator("#results-left > li.is-shared").first
    shared.hover()
    expect(shared).to_have_class(re.compile(r"\bis-paired\b"))
    page.screenshot(path=str(artifacts / "screens-sxs-dark.png"))
    checked = [
        "#query-desc-text",
        "#results-left > li .sxs-title mark.term",
        "#results-left > li:not(.is-paired) .sxs-url",
        "#results-left > li:not(.is-paired) .sxs-snippet",
        "#results-left > li.is-paired .sxs-title a",
        "#results-left > li.is-paired .sxs-snippet",
        ".sxs-strength legend",  # on the sticky answer bar
        "#choose-left .choice-name",
        "#change-banner",
    ]
    assert low_contrast(page, checked) == {}
    page.context.close()

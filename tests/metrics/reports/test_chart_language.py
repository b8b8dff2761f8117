"""The charts speak the reader's language (issue 20): their titles, axis labels and legends
are translated, a Chinese chart is measured with a font that has the characters (fonts-noto-cjk),
and a snapshot's stored charts are there in every language of the interface."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import numpy as np
import pytest
from django.conf import settings
from django.utils import translation

from metrics.reports import charts
from metrics.reports.snapshot_charts import in_this_language
from tests.conftest import REQUIRE_ALL_TESTS

_TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.S)
# What a chart may show in Latin letters whatever the language: measure names and the
# data (system and rater names below are Chinese or single letters on purpose).
_NAMES = re.compile(r"NDCG|nDCG|MRR|ERR|RBP|Cohen|kappa|n=\d+|[A-Za-z]\b")


def texts(svg: str) -> list[str]:
    return [html.unescape(body) for _attrs, body in _TEXT.findall(svg)]


def every_chart() -> dict[str, str]:
    """Each kind of chart, drawn with data that carry no English words."""
    hours = [datetime(2026, 11, 1, h, tzinfo=UTC) for h in range(3)]
    return {
        "bars": charts.bars_with_intervals(
            title=translation.gettext("Systems: means with %(confidence)s intervals")
            % {"confidence": "95%"},
            groups=["NDCG@10"],
            series=["线上", "新版"],
            means=np.array([[0.5], [0.6]]),
            lows=np.array([[0.4], [0.5]]),
            highs=np.array([[0.6], [0.7]]),
        ),
        "curves": charts.curves(title="NDCG", ks=[1, 2, 3], series={"线上": [0.2, 0.3, 0.4]}),
        "histogram": charts.histogram(
            title="NDCG",
            edges=np.array([-0.2, 0.0, 0.2]),
            counts=np.array([3, 5]),
            xlabel="NDCG",
            mean=0.05,
        ),
        "timeline": charts.stacked_time_bars(
            title="NDCG",
            buckets=hours,
            series={"张伟": [1, 2, 3], "others": [1, 0, 1]},
            unit="hour",
        ),
        "kappa": charts.matrix(
            title="NDCG", names=["张伟", "李娜"], values=np.array([[1.0, 0.5], [0.5, 1.0]])
        ),
        "verdicts": charts.verdict_bar_svg(good=5, same_rated=2, same_identical=1, bad=3),
        "strength": charts.strength_svg({-1: 2, 0: 1, 2: 4}),
    }


def english_left(svg: str) -> list[str]:
    return [t for t in texts(svg) if re.search(r"[A-Za-z]{2,}", _NAMES.sub("", t))]


def test_every_label_of_every_chart_is_chinese_on_a_chinese_page():
    with translation.override("zh-hans"):
        drawn = every_chart()
    with translation.override("en"):
        english = every_chart()
    for name, svg in drawn.items():
        assert not english_left(svg), f"{name}: {english_left(svg)}"
        assert re.search(r"[\u4e00-\u9fff]", "".join(texts(svg))), name
    # The same charts in English do show English words (the check above can fail).
    assert english_left(english["verdicts"]) and english_left(english["curves"])
    assert "其他" in texts(drawn["timeline"]) and "others" in texts(english["timeline"])


def font_families(svg: str) -> set[str]:
    return set(re.findall(r"font-family:\s*([^;\"]+)", svg))


def test_a_chinese_chart_is_measured_with_a_cjk_font_when_one_is_installed():
    font = charts.cjk_font()
    if font is None:
        message = "no CJK font for matplotlib: apt-get install fonts-noto-cjk"
        if REQUIRE_ALL_TESTS:
            pytest.fail(message)
        # Without one, the charts still draw, in DejaVu Sans.
        with translation.override("zh-hans"):
            assert charts.rc()["font.sans-serif"] == ["DejaVu Sans"]
        return
    with translation.override("zh-hans"):
        chinese = charts.verdict_bar_svg(good=5, same_rated=2, same_identical=0, bad=3)
    with translation.override("en"):
        english = charts.verdict_bar_svg(good=5, same_rated=2, same_identical=0, bad=3)
    assert font_families(chinese) == {f"'{font}', 'DejaVu Sans', sans-serif"}
    # English keeps its font, and names the CJK one for Chinese data (a rater's name).
    assert font_families(english) == {f"'DejaVu Sans', '{font}', sans-serif"}


def test_a_snapshots_charts_follow_the_readers_language():
    stored = {
        "en": {"bars": "<svg>English</svg>"},
        "zh-hans": {"bars": "<svg>中文</svg>"},
    }
    with translation.override("zh-hans"):
        assert in_this_language(stored) == {"bars": "<svg>中文</svg>"}
    with translation.override("en"):
        assert in_this_language(stored) == {"bars": "<svg>English</svg>"}
    # A snapshot stored before charts were drawn per language keeps showing its charts.
    with translation.override("zh-hans"):
        assert in_this_language({"bars": "<svg>old</svg>"}) == {"bars": "<svg>old</svg>"}
    assert {code for code, _name in settings.LANGUAGES} == {"en", "zh-hans"}

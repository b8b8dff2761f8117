"""The sentences the decide modules write for the pages speak the reader's language in every
branch, and the API keeps its English (issue 20).

The pseudo-locale test sees a page in one state of the demo; these build each state (launch,
do not launch, more data and each of its reasons, the four launch states and collecting, the
graded decision, the agreement of GSB with NDCG) and read them in zh-Hans: once the names of
measures and systems are taken out, no English word may be left. A sentence glued from
English pieces, or a core reason left unworded, shows up as Latin words here.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np
import pytest
from django.urls import reverse
from django.utils import translation

from metrics.core.stats import Decision
from metrics.core.stats.gsb import gsb_from_query_counts
from metrics.decide import graded_launch, launch
from metrics.decide.gsb import decision_text
from metrics.decide.launch import LaunchState
from metrics.decide.ndcg import comparison_report, missing_notice
from metrics.decide.review import agreement_words
from metrics.decide.words import more_queries_words, reason_words, warning_words

ZH = "zh-hans"
# Names kept in every language: measures, the product's letters for the sides, units.
KEPT = {"GSB", "NDCG", "MAP", "MRR", "ERR", "bootstrap", "run", "UTC", "Holm", "BCa"}


def latin_words(text: str, *names: str) -> list[str]:
    for name in names:
        text = text.replace(name, " ")
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in KEPT]


def _result(g, s, b, **kwargs):
    g, s, b = (np.asarray(x, dtype=np.int64) for x in (g, s, b))
    return gsb_from_query_counts(g, s, b, **kwargs)


# (what the case is, its result): each case checks below that it gives the branch it names.
CASES = {
    "launch": lambda: _result([3] * 40, [0] * 40, [0] * 40, min_queries=10),
    "worse, conclusively": lambda: _result([0] * 40, [0] * 40, [3] * 40),
    "below the bar, conclusively": lambda: _result([1] * 40, [1] * 40, [1] * 40, threshold=0.5),
    "did not beat the bar": lambda: _result([1, 0], [0, 0], [0, 1]),
    "interval includes the bar": lambda: _result([1, 1, 0], [0, 0, 0], [0, 0, 1], min_queries=0),
    "fewer than the minimum": lambda: _result([3] * 12, [0] * 12, [0] * 12, min_queries=30),
    "fewer that differ": lambda: _result(
        [3] * 12 + [0],
        [0] * 12 + [1],
        [0] * 13,
        min_queries=30,
        informative=np.array([True] * 12 + [False]),
    ),
    "sign test": lambda: _result(
        [10] * 10 + [0] * 20, [0] * 30, [0] * 10 + [1] * 20, min_queries=5
    ),
}
REASONS = {
    "interval includes the bar": "the interval still includes the bar",
    "fewer than the minimum": "fewer than 30 queries",
    "fewer that differ": "fewer than 30 queries whose lists differ",
    "sign test": "the sign test over queries does not favour the candidate",
}


@pytest.mark.parametrize("case", CASES)
def test_every_decision_reads_chinese_with_its_figures(case):
    result = CASES[case]()
    if case in REASONS:
        assert result.decision == Decision.MORE_DATA and result.reason == REASONS[case]
    with translation.override(ZH):
        text = decision_text(result)
        more = more_queries_words(result)
        warnings = warning_words(result)
    assert text.headline and text.detail
    shown = " ".join([text.headline, text.detail, more or "", *warnings])
    assert latin_words(shown) == [], shown
    assert f"{result.gsb:+.3f}" in text.detail  # the figures survive the translation
    with translation.override("en"):  # English stays as metrics.core words it
        assert reason_words(result) == result.reason
        assert more_queries_words(result) == result.more_queries_text


def test_the_cases_cover_every_decision_and_warning():
    results = {case: make() for case, make in CASES.items()}
    assert {r.decision for r in results.values()} == set(Decision)
    bootstrap = _result([3] * 5, [0] * 5, [1] * 5, min_queries=0, bootstrap=True, seed=1)
    assert bootstrap.warnings
    with translation.override(ZH):
        assert latin_words(" ".join(warning_words(bootstrap))) == []


def _fake_gsb(**kwargs) -> SimpleNamespace:
    return SimpleNamespace(good=26, bad=5, n_verdicts=44, confidence=0.95, threshold=0.1, **kwargs)


@pytest.mark.parametrize("state", list(LaunchState))
def test_every_launch_state_is_one_chinese_sentence(state):
    with translation.override(ZH):
        sentence = launch._sentence(_fake_gsb(), state, -0.02, 0.31)
        headline = launch.early_headline(str(launch.HEADLINES[state][0]))
        graded = graded_launch._sentence(
            state,
            SimpleNamespace(measure_label="NDCG@10", result=SimpleNamespace(diff=0.049)),
            -0.004, 0.102, 0.0, 0.95,
        )  # fmt: skip
    for text in (sentence, headline, graded):
        assert latin_words(text, "NDCG@10") == [], text
    assert "26" in sentence and "44" in sentence


def _graded(diff: float) -> SimpleNamespace:
    low, high = (diff - 0.01, diff + 0.01) if diff else (-0.05, 0.05)
    return SimpleNamespace(
        measure_label="NDCG@10", ci_t=(low, high), result=SimpleNamespace(diff=diff)
    )


def _launch(gsb: float, low: float, high: float) -> SimpleNamespace:
    return SimpleNamespace(
        state=LaunchState.LAUNCH, path="fixed", gsb=gsb, fixed_low=low, fixed_high=high,
        sequence_low=low, sequence_high=high,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("gsb", "interval", "diff", "expected"),
    [
        (0.3, (0.1, 0.5), -0.05, "disagree"),
        (-0.3, (-0.5, -0.1), 0.05, "disagree"),
        (0.3, (0.1, 0.5), 0.05, "agree"),
        (-0.3, (-0.5, -0.1), -0.05, "agree"),
        (0.3, (0.1, 0.5), 0.0, "gsb_only"),
        (-0.3, (-0.5, -0.1), 0.0, "gsb_only"),
        (0.0, (-0.1, 0.1), 0.05, "graded_only"),
        (0.0, (-0.1, 0.1), -0.05, "graded_only"),
        (0.0, (-0.1, 0.1), 0.0, "neither"),
    ],
)
def test_every_agreement_of_gsb_and_ndcg_reads_chinese(gsb, interval, diff, expected):
    with translation.override(ZH):
        kind, text = agreement_words(_launch(gsb, *interval), _graded(diff))
    assert kind == expected
    assert latin_words(text, "NDCG@10") == [], text


def test_the_graded_comparison_and_its_notice_read_chinese():
    summary = {
        "systems": [
            {"run_id": 1, "run": "base", "system": "base", "queries_with_results": 4},
            {"run_id": 2, "run": "cand", "system": "cand", "queries_with_results": 3},
        ],
        "measures": [{"key": "ndcg_cut_10", "label": "NDCG@10"}],
        "n_queries": 4,
    }
    per_query = {
        "qids": ["q1", "q2", "q3", "q4"],
        "runs": {"1": {"ndcg_cut_10": [0.5, 0.4, 0.6, 0.2]},
                 "2": {"ndcg_cut_10": [0.7, 0.5, 0.6, 0.0]}},
    }  # fmt: skip
    with translation.override(ZH):
        report, why = comparison_report(
            summary=summary, per_query=per_query, a=None, b=None, measure=None
        )
        assert why == "" and report is not None
        sentence, notice = report.sentence, report.notice
        _none, refused = comparison_report(
            summary=summary, per_query=per_query, a="1", b="1", measure=None
        )
    assert latin_words(sentence, "NDCG@10", "cand", "base") == [], sentence
    assert latin_words(notice or "", "cand", "base") == [], notice
    assert refused and latin_words(refused) == [], refused
    with translation.override("en"):
        english = missing_notice(4, [("B (cand)", 1)])
    assert english.startswith("B (cand) has no results for 1 of the 4 queries.")


@pytest.mark.django_db
def test_the_api_answers_in_english_whatever_the_callers_language(personas):
    from tests.annotate.views.test_sxs_manage import seed_002
    from tests.api.conftest import api_client_for

    comparison = seed_002(personas)
    client = api_client_for(personas, "manager")
    url = f"/api/v1/comparisons/{comparison.pk}/gsb/"
    body = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").json()
    assert body["headline"].startswith("Do not launch")
    assert body["launch"]["sentence"].startswith("The candidate was preferred on 1 of 4 answers")
    assert {row["majority"] for row in body["queries"]} == {"candidate", "tie", "baseline"}
    # The page, asked the same way, speaks Chinese.
    page = personas.client_for("manager").get(
        reverse(
            "annotate:sxs_report",
            kwargs={"slug": comparison.campaign.slug, "comparison_id": comparison.pk},
        ),
        HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9",
    )
    html = page.content.decode()
    assert "在 4 个答案中，实验组胜出 1 个、落后 2 个" in html and "The candidate" not in html
    assert "实验组胜出" in html and "持平" in html  # the per-query majority column


@pytest.mark.django_db
def test_the_launch_memo_downloads_in_the_readers_language(personas):
    from tests.annotate.views.test_sxs_manage import seed_002

    comparison = seed_002(personas)
    url = reverse(
        "annotate:sxs_memo",
        kwargs={"slug": comparison.campaign.slug, "comparison_id": comparison.pk},
    )
    client = personas.client_for("manager")
    memo = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert memo.startswith("# 上线备忘录：")
    runs = (comparison.baseline, comparison.candidate)
    names = [comparison.name, "NDCG@10", *(r.name for r in runs), *(r.system.name for r in runs)]
    lines = [line for line in memo.splitlines() if latin_words(line, *names)]
    assert lines == [], lines

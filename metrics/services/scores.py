"""System scores of a campaign: every run evaluated by the engine against the campaign's qrels,
summarised as a snapshot can store them (plain JSON: numbers, lists, names), or for any
measures on request (metrics.services.scores_request). Both go through one evaluation loop
(``evaluate_runs``) and one mean-with-interval, and their settings through one validator
(``check_setting``), which the report pages' form and the API both use.

The measures are fixed for the report (DESIGN.md section 4, at the campaign's relevance level):
NDCG@k (gain, discount and ideal chosen on the page) and its curve NDCG@1..k, MAP, P@k, MRR,
ERR@k (top grade of the label scale) and judged@k. Each mean comes with a 95% t-interval over
queries, mean ± t(0.975, n − 1) · s / √n with s the standard deviation of the per-query values
(ddof 1), clipped to the measures' range [0, 1]: a plain, well-understood interval; the
comparison of two systems adds the paired tests and a BCa bootstrap of the difference
(metrics.core.stats.compare_runs).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from django.utils.translation import gettext as _
from scipy.special import stdtrit

from metrics.adapters.campaign import CampaignQrels, CampaignRun
from metrics.core import Result, evaluate

CONFIDENCE = 0.95
GAINS = ("linear", "exponential")
DISCOUNTS = ("log2", "jarvelin")
IDEALS = ("judged", "retrieved")
SETTING_CHOICES = {"gain": GAINS, "discount": DISCOUNTS, "ideal": IDEALS}
MAX_K = 100
DEFAULT_K = 10
# Below this share of judged documents in the top k, the scores mostly measure the holes.
JUDGED_WARNING = 0.8


def check_setting(name: str, value: object) -> str:
    """`value` if it is one of SETTING_CHOICES[name] (gain, discount or ideal); ValueError with
    a message for the person who asked otherwise. The one check of these settings: the
    report pages' form, MeasureSettings and the API all call it."""
    allowed = SETTING_CHOICES[name]
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
    return str(value)


@dataclass(frozen=True)
class MeasureSettings:
    """What the page lets a manager choose about the measures; `key` names a snapshot."""

    k: int = DEFAULT_K
    gain: str = "linear"
    discount: str = "log2"
    ideal: str = "judged"

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int) or not 1 <= self.k <= MAX_K:
            raise ValueError(f"k must be a whole number from 1 to {MAX_K}, not {self.k!r}")
        for name in SETTING_CHOICES:
            check_setting(name, getattr(self, name))

    @property
    def key(self) -> str:
        return f"k={self.k};gain={self.gain};discount={self.discount};ideal={self.ideal}"

    @classmethod
    def from_key(cls, key: str) -> MeasureSettings:
        parts = dict(part.split("=", 1) for part in key.split(";"))
        return cls(
            k=int(parts["k"]), gain=parts["gain"], discount=parts["discount"], ideal=parts["ideal"]
        )

    @property
    def ndcg(self) -> str:
        return f"ndcg_cut_{self.k}"

    @property
    def judged(self) -> str:
        return f"judged_{self.k}"

    def measures(self) -> list[tuple[str, str]]:
        """(engine output name, label) of the table's columns, in the order shown."""
        k = self.k
        return [
            (f"ndcg_cut_{k}", f"NDCG@{k}"),
            ("map", "MAP"),
            (f"P_{k}", f"P@{k}"),
            ("recip_rank", "MRR"),
            (f"err_cut_{k}", f"ERR@{k}"),
            (f"judged_{k}", f"judged@{k}"),
        ]

    def requests(self) -> list[str]:
        k = self.k
        return [f"ndcg_cut.1-{k}", "map", f"P.{k}", "recip_rank", f"err_cut.{k}", f"judged.{k}"]

    def describe(self) -> str:
        """The settings in words, in the reader's language."""
        gain = _("linear gain") if self.gain == "linear" else _("exponential gain (2^g − 1)")
        discount = (
            _("discount log2(i + 1)")
            if self.discount == "log2"
            else _("Järvelin–Kekäläinen discount")
        )
        ideal = (
            _("ideal from every judged document")
            if self.ideal == "judged"
            else _("ideal from the retrieved list only")
        )
        return _("k = %(k)s, %(gain)s, %(discount)s, %(ideal)s") % {
            "k": self.k,
            "gain": gain,
            "discount": discount,
            "ideal": ideal,
        }


def t_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """mean ± t(1 − α/2, n − 1) · s/√n, clipped to [0, 1]; None for fewer than two values.

    Every measure of the table lies in [0, 1], and the t-interval of a mean near a bound can
    cross it (MRR of 0.95 over few queries); a bound no query can pass is clipped, not shown."""
    n = values.size
    if n < 2:
        return None
    mean = float(values.mean())
    sd = float(values.std(ddof=1))
    # stdtrit is what scipy.stats.t.ppf computes, without importing scipy.stats (seconds).
    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * sd / math.sqrt(n)
    return max(0.0, mean - half), min(1.0, mean + half)


def evaluate_runs(
    qrels: CampaignQrels,
    runs: Iterable[CampaignRun],
    requests: list[str],
    *,
    gain: str | dict = "linear",
    discount: str = "log2",
    ideal: str = "judged",
) -> Iterator[tuple[CampaignRun, Result]]:
    """Every run evaluated against the campaign's qrels by the campaign's rules: every query of
    the campaign counts (complete), its relevance level, ERR's top grade from its scale."""
    # A campaign without queries has nothing to average over (the engine refuses it).
    for entry in runs if qrels.n_queries else []:
        result = evaluate(
            qrels.qrels,
            entry.run,
            requests,
            relevance_level=qrels.relevance_level,
            gain=gain,
            discount=discount,
            ideal=ideal,
            complete=True,
            max_grade=qrels.max_grade,
        )
        yield entry, result


def mean_with_interval(result: Result, name: str) -> dict[str, float | None]:
    """The mean of one measure over the queries, with its t-interval (None below two)."""
    interval = t_interval(result.per_query[name])
    return {
        "mean": result.mean[name],
        "low": interval[0] if interval else None,
        "high": interval[1] if interval else None,
    }


def run_fields(entry: CampaignRun) -> dict:
    """What names a run in a table of scores."""
    return {
        "run_id": entry.run_id,
        "run": entry.name,
        "system": entry.system,
        "scored": entry.scored,
        "queries_with_results": entry.queries_with_results,
    }


def evaluate_campaign(
    *, qrels: CampaignQrels, runs: Iterable[CampaignRun], settings: MeasureSettings
) -> tuple[dict, dict]:
    """(summary, per_query) of every run, JSON-ready. ``per_query`` holds the table's measures
    per query, aligned with its ``qids`` (the campaign's query external ids, byte order)."""
    columns = settings.measures()
    summary: dict = {
        "version": 1,
        "settings": settings.key,
        "rule": qrels.rule,
        "source": qrels.source.name if qrels.source else None,
        "relevance_level": qrels.relevance_level,
        "max_grade": qrels.max_grade,
        "n_queries": qrels.n_queries,
        "unjudged_queries": qrels.unjudged_queries,
        "qrels_pairs": len(qrels.table),
        "adjudicated": qrels.adjudicated,
        "confidence": CONFIDENCE,
        "interval": "t",
        "measures": [{"key": key, "label": label} for key, label in columns],
        "systems": [],
    }
    per_query: dict = {"qids": [], "runs": {}}
    evaluated = evaluate_runs(
        qrels,
        runs,
        settings.requests(),
        gain=settings.gain,
        discount=settings.discount,
        ideal=settings.ideal,
    )
    for entry, result in evaluated:
        per_query["qids"] = list(result.qids)  # the same for every run (complete=True)
        summary["systems"].append(
            {
                **run_fields(entry),
                "values": {key: mean_with_interval(result, key) for key, _ in columns},
                "curve": [result.mean[f"ndcg_cut_{i}"] for i in range(1, settings.k + 1)],
            }
        )
        per_query["runs"][str(entry.run_id)] = {
            key: result.per_query[key].tolist() for key, _ in columns
        }
    return summary, per_query


def evaluate_on_request(
    *,
    qrels: CampaignQrels,
    runs: Iterable[CampaignRun],
    measures: list[str],
    names: list[str],
    gain: str | dict,
    discount: str,
    ideal: str,
) -> tuple[list[dict], dict[int, dict[str, list[float]]], list[str]]:
    """(systems, per_query by run id, qids) for any measures of the engine (`measures` as
    asked, `names` their output names), with the same loop and intervals as the snapshots;
    JSON has no NaN or infinity, so an undefined figure is None."""
    systems, per_query, qids = [], {}, []
    for entry, result in evaluate_runs(
        qrels, runs, measures, gain=gain, discount=discount, ideal=ideal
    ):
        qids = list(result.qids)
        values = {}
        for name in names:
            figures = mean_with_interval(result, name)
            values[name] = {key: _finite(value) for key, value in figures.items()}
        systems.append({**run_fields(entry), "values": values})
        per_query[entry.run_id] = {n: result.per_query[n].tolist() for n in names}
    return systems, per_query, qids


def _finite(value) -> float | None:
    """JSON has no NaN or infinity: an undefined figure is null."""
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None

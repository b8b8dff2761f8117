"""System scores of a campaign: every run evaluated by the engine against the campaign's qrels,
summarised as a snapshot can store them (plain JSON: numbers, lists, names).

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
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from metrics.adapters.campaign import CampaignQrels, CampaignRun
from metrics.core import evaluate

CONFIDENCE = 0.95
GAINS = ("linear", "exponential")
DISCOUNTS = ("log2", "jarvelin")
IDEALS = ("judged", "retrieved")
MAX_K = 100
DEFAULT_K = 10
# Below this share of judged documents in the top k, the scores mostly measure the holes.
JUDGED_WARNING = 0.8


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
        for value, allowed, what in (
            (self.gain, GAINS, "gain"),
            (self.discount, DISCOUNTS, "discount"),
            (self.ideal, IDEALS, "ideal"),
        ):
            if value not in allowed:
                raise ValueError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")

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
        gain = "linear gain" if self.gain == "linear" else "exponential gain (2^g − 1)"
        discount = (
            "discount log2(i + 1)" if self.discount == "log2" else "Järvelin–Kekäläinen discount"
        )
        ideal = (
            "ideal from every judged document"
            if self.ideal == "judged"
            else "ideal from the retrieved list only"
        )
        return f"k = {self.k}, {gain}, {discount}, {ideal}"


def t_interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """mean ± t(1 − α/2, n − 1) · s/√n, clipped to [0, 1]; None for fewer than two values.

    Every measure of the table lies in [0, 1], and the t-interval of a mean near a bound can
    cross it (MRR of 0.95 over few queries); a bound no query can pass is clipped, not shown."""
    n = values.size
    if n < 2:
        return None
    mean = float(values.mean())
    sd = float(values.std(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return max(0.0, mean - half), min(1.0, mean + half)


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
    # A campaign without queries has nothing to average over (the engine refuses it).
    for entry in runs if qrels.n_queries else []:
        result = evaluate(
            qrels.qrels,
            entry.run,
            settings.requests(),
            relevance_level=qrels.relevance_level,
            gain=settings.gain,
            discount=settings.discount,
            ideal=settings.ideal,
            complete=True,
            max_grade=qrels.max_grade,
        )
        per_query["qids"] = list(result.qids)  # the same for every run (complete=True)
        values = {}
        for key, _ in columns:
            column = result.per_query[key]
            interval = t_interval(column)
            values[key] = {
                "mean": result.mean[key],
                "low": interval[0] if interval else None,
                "high": interval[1] if interval else None,
            }
        summary["systems"].append(
            {
                "run_id": entry.run_id,
                "run": entry.name,
                "system": entry.system,
                "scored": entry.scored,
                "queries_with_results": entry.queries_with_results,
                "values": values,
                "curve": [result.mean[f"ndcg_cut_{i}"] for i in range(1, settings.k + 1)],
            }
        )
        per_query["runs"][str(entry.run_id)] = {
            key: result.per_query[key].tolist() for key, _ in columns
        }
    return summary, per_query

"""From the database to the metrics engine: a campaign's qrels and runs as engine arrays.

The engine (metrics.core) knows nothing of Django; this module is the only place that turns
rows into its ``Qrels`` and ``Run``. What it guarantees, so every report agrees with the
command line (DESIGN.md section 4):

- Ids are the external ids (the engine breaks score ties on the document id's bytes, as THE
  run order does; annotate.ranking).
- Qrels are the raters' grades aggregated by a rule, adjudications winning
  (annotate.services.aggregation), or an imported label source, as imported.
- Every query of the campaign counts. A query without results in a run scores 0 there
  (``complete=True``, trec_eval's -c); a query nobody has judged yet gets one placeholder qrels
  line with a negative grade ("pooled, not judged": gain 0, never relevant, not judged), which
  makes it count as 0 for every system instead of silently dropping out of the mean.
- A run without scores (a competitor's list with ranks only) is given scores that reproduce
  THE order exactly (scored entries first, then by rank, ties by document id descending).
- The relevance level is the campaign's "relevant from" grade; ERR's top grade is the label
  scale's (or a label source's own, if higher).

Reads are a handful of queries whatever the size: one for the queries, one for the documents,
one for all run entries of all runs, and the aggregation's own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from django.db.models import Max

from annotate.models import Campaign, Label, LabelSource, Run, RunEntry
from annotate.ranking import ranking_permutation
from annotate.services.aggregation import QrelsTable, aggregate_qrels, source_qrels
from metrics.columns import fetch_frame
from metrics.core import Qrels
from metrics.core import Run as EngineRun

# The docid of the placeholder line of a query nobody judged: its negative grade makes it
# harmless even if a run retrieved a document of that name.
UNJUDGED_DOCID = ""
UNJUDGED_GRADE = -1.0


@dataclass(frozen=True)
class Vocabulary:
    """A campaign's queries and documents: sorted primary keys and their external ids."""

    query_pk: np.ndarray
    query_ext: pl.Series
    document_pk: np.ndarray
    document_ext: pl.Series

    def queries(self, pks: np.ndarray) -> pl.Series:
        return self.query_ext.gather(np.searchsorted(self.query_pk, pks))

    def documents(self, pks: np.ndarray) -> pl.Series:
        return self.document_ext.gather(np.searchsorted(self.document_pk, pks))


@dataclass(frozen=True)
class CampaignQrels:
    """The qrels a report evaluates against, and what they were made from."""

    qrels: Qrels
    table: QrelsTable
    rule: str  # mean / median / majority, or "source"
    source: LabelSource | None
    n_queries: int  # queries of the campaign (all count)
    unjudged_queries: int  # of them, queries without any qrels line
    relevance_level: float
    max_grade: float

    @property
    def adjudicated(self) -> int:
        return 0 if self.table.adjudicated is None else int(self.table.adjudicated.sum())


@dataclass(frozen=True)
class CampaignRun:
    """One run of the campaign as the engine's Run, with its system."""

    run_id: int
    name: str
    system: str
    run: EngineRun
    queries_with_results: int
    scored: bool  # False: scores were made from THE order (ranks only, or some missing)


def vocabulary(*, campaign: Campaign) -> Vocabulary:
    queries = fetch_frame(
        campaign.queries.order_by("pk"), {"pk": pl.Int64, "external_id": pl.String}
    )
    documents = fetch_frame(
        campaign.documents.order_by("pk"), {"pk": pl.Int64, "external_id": pl.String}
    )
    return Vocabulary(
        query_pk=queries["pk"].to_numpy(),
        query_ext=queries["external_id"],
        document_pk=documents["pk"].to_numpy(),
        document_ext=documents["external_id"],
    )


def relevance_level(campaign: Campaign) -> float:
    return float(campaign.relevant_from)


def campaign_qrels(
    *,
    campaign: Campaign,
    rule: str | None = None,
    source: LabelSource | None = None,
    vocab: Vocabulary | None = None,
) -> CampaignQrels:
    """The campaign's qrels for the engine: `source`'s labels, or the raters' grades by
    `rule` (default: the campaign's). Raises ValueError for an unknown rule, or a source of
    another campaign."""
    if source is not None:
        if source.campaign_id != campaign.pk:
            raise ValueError(f"label source {source.name!r} belongs to another campaign")
        table = source_qrels(source=source)
    else:
        table = aggregate_qrels(campaign=campaign, rule=rule)
    vocab = vocab or vocabulary(campaign=campaign)
    unjudged = np.setdiff1d(vocab.query_pk, table.query_id)
    qids = pl.concat([pl.Series(table.query_external_id, dtype=pl.String), vocab.queries(unjudged)])
    docids = pl.concat(
        [
            pl.Series(table.document_external_id, dtype=pl.String),
            pl.Series([UNJUDGED_DOCID] * unjudged.size, dtype=pl.String),
        ]
    )
    grades = np.concatenate([table.grade, np.full(unjudged.size, UNJUDGED_GRADE)])
    top_label = Label.objects.filter(campaign=campaign).aggregate(m=Max("grade"))["m"]
    top = max(
        float(top_label) if top_label is not None else 0.0,
        float(table.grade.max()) if len(table) else 0.0,
    )
    return CampaignQrels(
        qrels=Qrels.from_arrays(qids, docids, grades),
        table=table,
        rule=table.rule,
        source=source,
        n_queries=int(vocab.query_pk.size),
        unjudged_queries=int(unjudged.size),
        relevance_level=relevance_level(campaign),
        max_grade=top,
    )


def campaign_runs(*, campaign: Campaign, vocab: Vocabulary | None = None) -> list[CampaignRun]:
    """Every run of the campaign (by system name, then run name), entries read in one query."""
    vocab = vocab or vocabulary(campaign=campaign)
    runs = list(
        Run.objects.filter(campaign=campaign)
        .order_by("system__name", "name")
        .values_list("pk", "name", "system__name")
    )
    entries = fetch_frame(
        RunEntry.objects.filter(run__campaign=campaign).order_by(),
        {
            "run_id": pl.Int64,
            "query_id": pl.Int64,
            "document_id": pl.Int64,
            "score": pl.Float64,
            "rank": pl.Int64,
        },
    )
    # One sort by run, then each run is a contiguous slice.
    entries = entries.sort("run_id")
    run_col = entries["run_id"].to_numpy()
    out = []
    for pk, name, system in runs:
        lo, hi = np.searchsorted(run_col, [pk, pk + 1])
        part = entries.slice(int(lo), int(hi - lo))
        out.append(_engine_run(pk, name, system, part, vocab))
    return out


def _engine_run(
    pk: int, name: str, system: str, part: pl.DataFrame, vocab: Vocabulary
) -> CampaignRun:
    query = part["query_id"].to_numpy()
    document = part["document_id"].to_numpy()
    score = part["score"].fill_null(np.nan).to_numpy().astype(np.float64, copy=True)
    docids = vocab.documents(document)
    scored = not np.isnan(score).any()
    if not scored:
        score = _scores_from_order(query, score, part["rank"].to_numpy(), docids)
    return CampaignRun(
        run_id=pk,
        name=name,
        system=system,
        run=EngineRun.from_arrays(vocab.queries(query), docids, score, name=name),
        queries_with_results=int(np.unique(query).size),
        scored=scored,
    )


def _scores_from_order(
    query: np.ndarray, score: np.ndarray, rank: np.ndarray, docids: pl.Series
) -> np.ndarray:
    """Scores that make the engine's order (score desc, docid desc) THE order of
    annotate.ranking: minus the position in that order, which never ties."""
    # Polars compares strings by their UTF-8 bytes: dense ranks are byte-order keys.
    doc_key = docids.rank("dense").to_numpy().astype(np.int64)
    order = ranking_permutation(query, score, rank, doc_key)
    out = np.empty(query.size, dtype=np.float64)
    out[order] = -np.arange(query.size, dtype=np.float64)
    return out

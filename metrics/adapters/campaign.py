"""From the database to the metrics engine: a campaign's qrels and runs as engine arrays.

The engine (metrics.core) knows nothing of Django; this module is the only place that turns
rows into its ``Qrels`` and ``Run``. What it guarantees, so every report agrees with the
command line (DESIGN.md section 4):

- Query ids are the external ids (results are reported per query). Document ids are the
  documents' primary keys as text: a document never appears in a result, and reading the
  external ids of every document (millions) would cost more than the whole evaluation.
- Every run is handed over in THE run order of annotate.ranking (score descending, ties by
  document external id descending in byte order; runs with ranks only by rank): the scores the
  engine gets are minus the position in that order, so they never tie and the engine's own tie
  rule never applies. Only the documents of tied entries have their external ids read.
- Qrels are the raters' grades aggregated by a rule, adjudications winning
  (annotate.services.aggregation), or an imported label source, as imported.
- Every query of the campaign counts. A query without results in a run scores 0 there
  (``complete=True``, trec_eval's -c); a query nobody has judged yet gets one placeholder qrels
  line with a negative grade ("pooled, not judged": gain 0, never relevant, not judged), which
  makes it count as 0 for every system instead of silently dropping out of the mean.
- The relevance level is the campaign's "relevant from" grade; ERR's top grade is the label
  scale's (or a label source's own, if higher).

Reads are a handful of queries whatever the size: the queries, all run entries of all runs at
once, the aggregation's own, and the external ids of tied documents.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl
from django.db.models import Max

from annotate.models import Campaign, Document, Label, LabelSource, Run, RunEntry
from annotate.ranking import ranking_permutation
from annotate.services.aggregation import QrelsTable, aggregate_qrels, source_qrels
from metrics.adapters.columns import fetch_frame
from metrics.core import Qrels
from metrics.core import Run as EngineRun

# The docid of the placeholder line of a query nobody judged: its negative grade makes it
# harmless whatever a run retrieves.
UNJUDGED_DOCID = ""
UNJUDGED_GRADE = -1.0
_ID_CHUNK = 900  # ids per IN (...) list: under SQLite's historical 999 parameters


@dataclass(frozen=True)
class Vocabulary:
    """A campaign's queries: sorted primary keys and their external ids."""

    query_pk: np.ndarray
    query_ext: pl.Series

    def queries(self, pks: np.ndarray) -> pl.Series:
        return self.query_ext.gather(np.searchsorted(self.query_pk, pks))


def document_keys(pks: np.ndarray) -> pl.Series:
    """Document primary keys as the engine's document ids."""
    return pl.Series("docid", np.asarray(pks, dtype=np.int64)).cast(pl.String)


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
    return Vocabulary(query_pk=queries["pk"].to_numpy(), query_ext=queries["external_id"])


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
            document_keys(table.document_id),
            pl.Series("docid", [UNJUDGED_DOCID] * unjudged.size, dtype=pl.String),
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
    return list(iter_campaign_runs(campaign=campaign, vocab=vocab))


def iter_campaign_runs(
    *, campaign: Campaign, vocab: Vocabulary | None = None
) -> Iterator[CampaignRun]:
    """The runs one at a time, so a caller that evaluates each and lets it go holds one run's
    engine arrays at a time (a million entries each, at the benchmark's size)."""
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
    ).sort("run_id")
    # Each run is a contiguous slice after one sort.
    run_col = entries["run_id"].to_numpy()

    def run_entries(pk: int) -> _Entries:
        lo, hi = np.searchsorted(run_col, [pk, pk + 1])
        part = entries.slice(int(lo), int(hi - lo))
        return _Entries(
            query=part["query_id"].to_numpy(),
            document=part["document_id"].to_numpy(),
            score=part["score"].fill_null(np.nan).to_numpy().astype(np.float64),
            rank=part["rank"].to_numpy(),
        )

    # Two passes: the tied documents of every run first, so their external ids are read in
    # one go (the number of queries does not grow with the number of runs), then each run.
    tied = set()
    for pk, _, _ in runs:
        one = run_entries(pk)
        tied.update(np.unique(one.document[one.tied()]).tolist())
    keys = _byte_order_keys(sorted(tied))
    for pk, name, system in runs:
        yield _engine_run(pk, name, system, run_entries(pk), keys, vocab)


@dataclass(frozen=True)
class _Entries:
    query: np.ndarray
    document: np.ndarray
    score: np.ndarray  # NaN: no score (ordered by rank)
    rank: np.ndarray

    def primary(self) -> np.ndarray:
        """The order before document ids decide: (query, scored first, score desc, rank)."""
        unscored = np.isnan(self.score)
        return np.lexsort(
            (np.where(unscored, self.rank, 0), np.where(unscored, 0.0, -self.score), unscored,
             self.query)
        )  # fmt: skip

    def tied(self) -> np.ndarray:
        """Entries that share their place in the primary order with another: only their
        documents' external ids can order them."""
        if self.query.size < 2:
            return np.zeros(self.query.size, dtype=bool)
        order = self.primary()
        q, s, r = self.query[order], self.score[order], self.rank[order]
        unscored = np.isnan(s)
        same = (q[1:] == q[:-1]) & np.where(
            unscored[1:] & unscored[:-1], r[1:] == r[:-1], s[1:] == s[:-1]
        )
        tie = np.zeros(order.size, dtype=bool)
        tie[1:] |= same
        tie[:-1] |= same
        out = np.zeros(order.size, dtype=bool)
        out[order] = tie
        return out


def _byte_order_keys(pks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(sorted document pks, the byte-order rank of each one's external id)."""
    if not pks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    frames = [
        fetch_frame(
            Document.objects.filter(pk__in=pks[i : i + _ID_CHUNK]).order_by(),
            {"pk": pl.Int64, "external_id": pl.String},
        )
        for i in range(0, len(pks), _ID_CHUNK)
    ]
    docs = pl.concat(frames).sort("pk")
    # Polars compares strings by their UTF-8 bytes: dense ranks are byte-order keys.
    return docs["pk"].to_numpy(), docs["external_id"].rank("dense").to_numpy().astype(np.int64)


def _engine_run(
    pk: int,
    name: str,
    system: str,
    entries: _Entries,
    keys: tuple[np.ndarray, np.ndarray],
    vocab: Vocabulary,
) -> CampaignRun:
    known, rank_of = keys
    doc_key = np.zeros(entries.document.size, dtype=np.int64)
    if known.size:
        pos = np.minimum(np.searchsorted(known, entries.document), known.size - 1)
        hit = known[pos] == entries.document
        doc_key[hit] = rank_of[pos[hit]]
    # THE order (annotate.ranking): the document keys only matter inside ties.
    order = ranking_permutation(entries.query, entries.score, entries.rank, doc_key)
    score = np.empty(entries.query.size, dtype=np.float64)
    score[order] = -np.arange(entries.query.size, dtype=np.float64)
    return CampaignRun(
        run_id=pk,
        name=name,
        system=system,
        run=EngineRun.from_arrays(
            vocab.queries(entries.query), document_keys(entries.document), score, name=name
        ),
        queries_with_results=int(np.unique(entries.query).size),
        scored=not np.isnan(entries.score).any(),
    )

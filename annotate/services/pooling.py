"""TREC-style pooling: the pool gains the union of the top `depth` documents of each chosen run
per query, cut in THE ranking order (annotate.ranking)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotate.models import Campaign, Document, PoolItem, Run
from annotate.ranking import ranked_entries

_BATCH = 5000
PLACEHOLDER_EXAMPLES = 10


@dataclass(frozen=True)
class PoolResult:
    """What a pooling did. `per_run` counts the pairs in each run's top `depth` (before the
    union, so a pair two runs share counts for both); `created + existing` is the size of the
    union. `placeholders` counts distinct pooled documents known only by id: raters cannot
    judge them until their content is imported."""

    depth: int
    created: int
    existing: int
    per_run: dict[str, int] = field(default_factory=dict)
    placeholders: int = 0
    placeholder_examples: list[str] = field(default_factory=list)

    @property
    def pooled(self) -> int:
        return self.created + self.existing

    def summary(self) -> str:
        runs = ", ".join(f"{name}: {n}" for name, n in self.per_run.items())
        return _(
            "Pooled %(pooled)s query-document pairs at depth %(depth)s (%(created)s new, "
            "%(existing)s already in the pool; per run: %(runs)s)."
        ) % {
            "pooled": self.pooled,
            "depth": self.depth,
            "created": self.created,
            "existing": self.existing,
            "runs": runs,
        }

    def warnings(self) -> list[str]:
        if not self.placeholders:
            return []
        shown = ", ".join(self.placeholder_examples)
        more = "" if self.placeholders <= len(self.placeholder_examples) else ", ..."
        return [
            ngettext(
                "%(n)s pooled document is known by id only (%(shown)s%(more)s): raters "
                "cannot judge it until its content is imported.",
                "%(n)s pooled documents are known by id only (%(shown)s%(more)s): raters "
                "cannot judge them until their content is imported.",
                self.placeholders,
            )
            % {"n": self.placeholders, "shown": shown, "more": more}
        ]


def pool_from_runs(
    *,
    campaign: Campaign,
    runs: Sequence[Run],
    depth: int,
    raters_needed: int | None = None,
) -> PoolResult:
    """Add the top `depth` of each run, per query, to the campaign's pool.

    Pairs already in the pool (from an earlier pooling, by hand or by import) are kept as they
    are, raters_needed included, so pooling twice creates nothing new and pooling deeper only
    adds the difference. New items need `raters_needed` raters, or the campaign's overlap when
    it is None (stored as NULL, so a later change of the overlap still applies to them).
    """
    _check_request(campaign=campaign, runs=runs, depth=depth, raters_needed=raters_needed)
    per_run: dict[str, int] = {}
    queries, documents = [], []
    for run in runs:
        top = ranked_entries(run, k=depth)
        per_run[run.name] = len(top)
        queries.append(top.query_id)
        documents.append(top.document_id)
    query_ids, document_ids = _unique_pairs(np.concatenate(queries), np.concatenate(documents))

    is_new = _add_new_pairs(
        campaign=campaign,
        query_ids=query_ids,
        document_ids=document_ids,
        raters_needed=raters_needed,
    )

    placeholder_count, examples = _placeholders(campaign, document_ids)
    return PoolResult(
        depth=depth,
        created=int(is_new.sum()),
        existing=int((~is_new).sum()),
        per_run=per_run,
        placeholders=placeholder_count,
        placeholder_examples=examples,
    )


def _check_request(
    *, campaign: Campaign, runs: Sequence[Run], depth: int, raters_needed: int | None
) -> None:
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    if raters_needed is not None and raters_needed < 1:
        raise ValueError(f"raters needed must be at least 1, got {raters_needed}")
    if not runs:
        raise ValueError("choose at least one run")
    foreign = [run.name for run in runs if run.campaign_id != campaign.pk]
    if foreign:
        raise ValueError(f"runs of another campaign: {', '.join(foreign)}")


def secret_permutation(n: int) -> np.ndarray:
    """A random order of n rows from the operating system's randomness: nobody can replay it,
    so the ids rows get in this order say nothing about the order they came in."""
    return np.random.default_rng(secrets.randbits(128)).permutation(n)


def _add_new_pairs(
    *,
    campaign: Campaign,
    query_ids: np.ndarray,
    document_ids: np.ndarray,
    raters_needed: int | None,
) -> np.ndarray:
    """Create the pool items of the pairs not in the pool yet; True for each such pair."""
    with transaction.atomic():
        # Serialises poolings of one campaign, so two managers pooling at once cannot both
        # count the same pair as new.
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        existing = np.fromiter(
            PoolItem.objects.filter(campaign=campaign)
            .values_list("query_id", "document_id")
            .iterator(chunk_size=_BATCH),
            dtype=np.dtype([("q", "i8"), ("d", "i8")]),
        )
        is_new = ~_pairs_in(query_ids, document_ids, existing["q"], existing["d"])
        new_queries, new_documents = query_ids[is_new], document_ids[is_new]
        # Made in an order that carries nothing (#24): sorted by document id, the ids of a
        # run imported before its documents gave a rater the run's ranking back.
        order = secret_permutation(new_queries.size)
        new_queries, new_documents = new_queries[order], new_documents[order]
        for start in range(0, new_queries.size, _BATCH):
            PoolItem.objects.bulk_create(
                (
                    PoolItem(
                        campaign=campaign,
                        query_id=int(q),
                        document_id=int(d),
                        raters_needed=raters_needed,
                        origin=PoolItem.Origin.POOLING,
                    )
                    for q, d in zip(
                        new_queries[start : start + _BATCH],
                        new_documents[start : start + _BATCH],
                        strict=True,
                    )
                ),
                ignore_conflicts=True,
            )
    return is_new


def _placeholders(campaign: Campaign, document_ids: np.ndarray) -> tuple[int, list[str]]:
    """How many of the pooled documents are placeholders, and a few of their ids. A big run of
    unknown documents makes many placeholders, so ids are matched in numpy, not in an IN list.
    The pooled documents are the campaign's (they come from its runs' entries), so its
    placeholders among them are those not known: the index of known documents serves this, and
    placeholders are in no index of their own (models/corpus.py)."""
    known_ids = np.fromiter(
        Document.objects.filter(campaign=campaign, is_placeholder=False)
        .values_list("id", flat=True)
        .iterator(chunk_size=_BATCH),
        dtype=np.int64,
    )
    pooled = np.setdiff1d(document_ids, known_ids)
    examples = Document.objects.filter(pk__in=pooled[:PLACEHOLDER_EXAMPLES].tolist())
    return int(pooled.size), sorted(examples.values_list("external_id", flat=True))


def _unique_pairs(queries: np.ndarray, documents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if queries.size == 0:
        return queries, documents
    pairs = np.unique(np.stack([queries, documents], axis=1), axis=0)
    return pairs[:, 0], pairs[:, 1]


def _pairs_in(q: np.ndarray, d: np.ndarray, other_q: np.ndarray, other_d: np.ndarray):
    """For each pair (q, d), whether it is among the (other_q, other_d) pairs. Ids are
    factorised first, so the combined key cannot overflow whatever the ids are."""
    if q.size == 0 or other_q.size == 0:
        return np.zeros(q.size, dtype=bool)
    _, qi = np.unique(np.concatenate([q, other_q]), return_inverse=True)
    _, di = np.unique(np.concatenate([d, other_d]), return_inverse=True)
    key = qi.astype(np.int64) * (int(di.max()) + 1) + di
    return np.isin(key[: q.size], key[q.size :])

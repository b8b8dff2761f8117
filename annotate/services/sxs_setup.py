"""Setting up a side-by-side comparison: which queries, which tasks, which are identical.

Judging a comparison (its queue and verdicts) is annotate/judging/sxs.py.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.utils.translation import gettext as _

from annotate.models import Campaign, Comparison, ComparisonUnit, PrimaryMeasure, Run, SxsTask
from annotate.ranking import run_top_k
from annotate.services.pooling import secret_permutation


class ComparisonRefused(Exception):
    """A comparison that cannot be set up as asked; the message says why, for the manager."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def sample_queries(
    query_ids: list[int], external_ids: list[str], *, size: int, seed: int
) -> list[int]:
    """A seeded random sample of `size` queries, the same for the same seed and query set.

    The queries are put in external-id order first, so the sample does not depend on database
    ids (a campaign imported again gives the same sample)."""
    ordered = [q for _, q in sorted(zip(external_ids, query_ids, strict=True))]
    return sorted(random.Random(seed).sample(ordered, size))


@transaction.atomic
def comparison_create(
    *,
    campaign: Campaign,
    name: str,
    baseline: Run,
    candidate: Run,
    unit: str = ComparisonUnit.LIST,
    depth: int = 10,
    raters_per_task: int = 1,
    min_gsb: float = 0.0,
    confidence: float = 0.95,
    min_queries: int = 30,
    equivalence_margin: float = 0.0,
    seed: int = 0,
    sample_size: int | None = None,
    primary: str = PrimaryMeasure.GSB,
    graded_settings: str = "",
    mirror_share: float = 0.05,
) -> Comparison:
    """Create a comparison of `candidate` against `baseline` with its tasks.

    A list task per query (all queries of the campaign, or a seeded sample of `sample_size`);
    per position, one task per rank 1..depth at which either run has a document. A task whose
    two sides show the same thing (the same documents in the same order; per position, the same
    document) is marked identical: it counts as Same without taking a rater's time.
    """
    name = (name or "").strip()
    _check_name_and_runs(campaign, name, baseline, candidate)
    _check_settings(campaign, unit, depth, raters_per_task, sample_size, primary, mirror_share)
    ids = _query_ids(campaign, sample_size=sample_size, seed=seed)
    comparison = Comparison.objects.create(
        campaign=campaign,
        name=name,
        baseline=baseline,
        candidate=candidate,
        unit=unit,
        depth=depth,
        raters_per_task=raters_per_task,
        min_gsb=min_gsb,
        confidence=confidence,
        min_queries=min_queries,
        equivalence_margin=equivalence_margin,
        primary=primary,
        graded_settings=graded_settings,
        seed=seed,
        mirror_share=mirror_share,
    )
    _make_tasks(comparison, ids)
    return comparison


def _make_tasks(comparison: Comparison, ids: list[int]) -> None:
    """The comparison's tasks for the queries `ids`, marked identical where both sides show
    the same thing, stored in an order that carries nothing."""
    base = run_top_k(comparison.baseline, comparison.depth, queries=ids)
    cand = run_top_k(comparison.candidate, comparison.depth, queries=ids)
    tasks = []
    for query_id in ids:
        b = base[query_id].tolist() if query_id in base else []
        c = cand[query_id].tolist() if query_id in cand else []
        if comparison.unit == ComparisonUnit.LIST:
            tasks.append(SxsTask(comparison=comparison, query_id=query_id, identical=b == c))
            continue
        for rank in range(1, max(len(b), len(c)) + 1):
            same = rank <= min(len(b), len(c)) and b[rank - 1] == c[rank - 1]
            tasks.append(
                SxsTask(comparison=comparison, query_id=query_id, position=rank, identical=same)
            )
    # Made in an order that carries nothing (#24): in query and rank order, a per-position
    # task's id would give its position away.
    tasks = [tasks[i] for i in secret_permutation(len(tasks))]
    SxsTask.objects.bulk_create(tasks, batch_size=2000)


def _query_ids(campaign: Campaign, *, sample_size: int | None, seed: int) -> list[int]:
    """The queries to compare on: all the campaign's, or a seeded sample of `sample_size`."""
    queries = list(campaign.queries.values_list("pk", "external_id"))
    if sample_size is None:
        return sorted(q for q, _ in queries)
    return sample_queries(
        [q for q, _ in queries], [e for _, e in queries], size=sample_size, seed=seed
    )


def _check_name_and_runs(campaign: Campaign, name: str, baseline: Run, candidate: Run) -> None:
    """A new name, and two different runs of this campaign."""
    if not name:
        raise ComparisonRefused(_("Give the comparison a name."))
    if Comparison.objects.filter(campaign=campaign, name=name).exists():
        raise ComparisonRefused(
            _("This campaign already has a comparison named “%(name)s”.") % {"name": name}
        )
    if baseline.campaign_id != campaign.pk or candidate.campaign_id != campaign.pk:
        raise ComparisonRefused(_("Both runs must belong to this campaign."))
    if baseline.pk == candidate.pk:
        raise ComparisonRefused(_("Choose two different runs: the baseline and the candidate."))


def _check_settings(
    campaign: Campaign,
    unit: str,
    depth: int,
    raters_per_task: int,
    sample_size: int | None,
    primary: str,
    mirror_share: float,
) -> None:
    """Settings in range, and a sample the campaign's queries can fill."""
    if primary not in PrimaryMeasure.values:
        raise ComparisonRefused(_("Unknown primary measure “%(m)s”.") % {"m": primary})
    if unit not in ComparisonUnit.values:
        raise ComparisonRefused(_("Unknown unit “%(unit)s”.") % {"unit": unit})
    if not 1 <= depth <= 100:
        raise ComparisonRefused(_("Results per side must be between 1 and 100."))
    if not 1 <= raters_per_task <= 50:
        raise ComparisonRefused(_("Raters per task must be between 1 and 50."))
    if not 0 <= mirror_share <= 0.5:
        raise ComparisonRefused(_("The share of mirrored duplicates must be between 0 and 0.5."))
    available = campaign.queries.count()
    if available == 0:
        raise ComparisonRefused(_("The campaign has no queries yet: import them first."))
    if sample_size is not None and not 1 <= sample_size <= available:
        raise ComparisonRefused(
            _("The sample must have between 1 and %(n)s queries (the campaign has %(n)s).")
            % {"n": available}
        )

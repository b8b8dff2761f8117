"""Builds the demo campaign: accounts, corpus, two systems' runs, the pool and a side-by-side
comparison, then has the seeded raters judge part of it (judging.py).

Everything comes from one seeded random generator, so two builds are identical except for
timestamps. Rows are written with bulk_create and read back by external id, which works the
same on every database whether or not it returns primary keys from bulk inserts.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction
from django.utils.text import slugify

from annotate import models as m
from annotate.demo import data, judging
from annotate.ranking import run_top_k
from annotate.services.campaigns import campaign_create, membership_set
from annotate.services.pooling import pool_from_runs

DEMO_SLUG = data.ENGLISH.slug
DEMO_NAME = data.ENGLISH.name
DEMO_PASSWORD = "demo"
SEED = 20261001
BASELINE = "prod-2026-10"
CANDIDATE = "candidate-bert"
DEPTH = 10
DISTRACTORS = 5  # other queries' listings each query's runs also retrieve

# username, is_staff, first name
ACCOUNTS: tuple[tuple[str, bool, str], ...] = (
    ("manager", True, "Morgan"),
    ("rater1", False, "Robin"),
    ("rater2", False, "Riley"),
)


@dataclass
class World:
    """What the judging step needs to know about the built campaign."""

    campaign: m.Campaign
    queries: list[m.Query]
    text: data.DemoText
    # (query pk, document pk) -> true grade (3 Good, 2 Fair, 1 Bad); distractors are Bad.
    truth: dict[tuple[int, int], int] = field(default_factory=dict)
    # query pk -> (baseline top 10, candidate top 10) as document pks, in ranking order.
    tops: dict[int, tuple[list[int], list[int]]] = field(default_factory=dict)


def accounts_ensure(*, reset_passwords: bool = False) -> dict[str, AbstractUser]:
    """The demo accounts, created once. An existing account keeps its password unless asked,
    so someone who changed it is not silently reset."""
    users = {}
    for username, is_staff, first_name in ACCOUNTS:
        user, created = get_user_model().objects.get_or_create(
            username=username,
            defaults={"first_name": first_name, "email": f"{username}@demo.example"},
        )
        if created or reset_passwords:
            user.is_staff = is_staff
            user.set_password(DEMO_PASSWORD)
            user.save()
        users[username] = user
    return users


def demo_campaign(language: str = "en") -> m.Campaign | None:
    return m.Campaign.objects.filter(slug=data.demo_text(language).slug).first()


@transaction.atomic
def demo_delete(language: str = "en") -> bool:
    """Delete the demo campaign and everything in it (not the accounts)."""
    campaign = demo_campaign(language)
    if campaign is None:
        return False
    # Comparisons protect their runs and grades their labels (on_delete=PROTECT), and Django
    # refuses the campaign's cascade while they exist, so they go first.
    m.Comparison.objects.filter(campaign=campaign).delete()
    m.Grade.objects.filter(pool_item__campaign=campaign).delete()
    campaign.delete()
    return True


@transaction.atomic
def demo_build(*, accounts: dict[str, AbstractUser], language: str = "en") -> m.Campaign:
    """Build the whole demo campaign in a language ("en" or "zh"). The caller checks that it
    does not exist yet."""
    rng = random.Random(SEED)
    text = data.demo_text(language)
    campaign = campaign_create(
        name=text.name,
        slug=text.slug,
        created_by=accounts["manager"],
        overlap=2,
        guidelines=text.guidelines,
        description=text.description,
        language=text.language,
    )
    for name in ("rater1", "rater2"):
        membership_set(campaign=campaign, user=accounts[name], role=m.Role.RATER)
    world = _corpus(campaign, text, rng)
    baseline, candidate = _runs(world, rng)
    _pool(world, (baseline, candidate))
    comparison = _comparison(world, baseline, candidate)
    judging.judge(world, comparison=comparison, raters=accounts, rng=rng)
    return campaign


def _corpus(campaign: m.Campaign, text: data.DemoText, rng: random.Random) -> World:
    queries, documents, truth = [], [], {}
    for qn, spec in enumerate(text.queries, start=1):
        qid = f"q{qn:02d}"
        queries.append(
            m.Query(campaign=campaign, external_id=qid, text=spec.text, description=spec.intent)
        )
        tiers = ((3, spec.good, 4), (2, spec.fair, 3), (1, spec.bad, 3))
        n = 0
        for grade, products, count in tiers:
            for i in range(count):
                n += 1
                product = products[i % len(products)]
                doc = _listing(text, spec, product, i + grade, f"P{qn:02d}{n:02d}", rng)
                documents.append(doc)
                truth[(qid, doc.external_id)] = grade
    m.Query.objects.bulk_create(queries)
    for doc in documents:
        doc.campaign = campaign
    m.Document.objects.bulk_create(documents)
    query_pk = dict(campaign.queries.values_list("external_id", "pk"))
    doc_pk = dict(campaign.documents.values_list("external_id", "pk"))
    return World(
        campaign=campaign,
        queries=list(campaign.queries.order_by("external_id")),
        text=text,
        truth={(query_pk[q], doc_pk[d]): g for (q, d), g in truth.items()},
    )


def _listing(
    text: data.DemoText,
    spec: data.QuerySpec,
    product: data.Product,
    brand_at: int,
    ext_id: str,
    rng: random.Random,
) -> m.Document:
    """One shop listing: brand × model × product, with two or three of its facts."""
    brand = spec.brands[brand_at % len(spec.brands)]
    model = f"{rng.choice(text.model_names)} {rng.randint(2, 9)}"
    title = f"{brand} {model} {product.name}"
    facts = rng.sample(product.facts, k=min(len(product.facts), rng.choice((2, 3))))
    price = max(round(product.price * rng.uniform(0.85, 1.2)), 2) - 0.01
    snippet = text.snippet(facts, price, rng.choice(text.shipping))
    domain = rng.choice(text.shop_domains)
    if text.language:
        # A Chinese title makes no path: Chinese shops name an item page by its id.
        url = f"https://{domain}/{spec.department}/{ext_id.lower()}.html"
    else:
        url = f"https://{domain}/{spec.department}/{slugify(title)}-{ext_id.lower()}"
    extra = {"brand": brand, "price": price, "department": spec.department}
    return m.Document(external_id=ext_id, title=title, url=url, snippet=snippet, extra=extra)


def _ranked(scores: dict[int, float], ext_id: dict[int, str]) -> list[tuple[int, float]]:
    """DESIGN.md section 4's order, for the rank column: score descending, then document id
    descending. (What counts downstream is annotate.ranking's order of the same rule.)"""
    by_id = sorted(scores.items(), key=lambda kv: ext_id[kv[0]].encode(), reverse=True)
    return sorted(by_id, key=lambda kv: -kv[1])


def _runs(world: World, rng: random.Random) -> tuple[m.Run, m.Run]:
    campaign = world.campaign
    baseline, candidate = (
        m.Run.objects.create(
            campaign=campaign,
            system=m.System.objects.create(campaign=campaign, name=name, description=about),
            name=name,
        )
        for name, about in zip((BASELINE, CANDIDATE), world.text.systems, strict=True)
    )

    ext_id = dict(campaign.documents.values_list("pk", "external_id"))
    own: dict[int, list[int]] = {}
    for q, d in world.truth:
        own.setdefault(q, []).append(d)
    department = {
        q.pk: world.text.queries[i].department.split("/")[0] for i, q in enumerate(world.queries)
    }
    entries = []
    for i, query in enumerate(world.queries):
        spec = world.text.queries[i]
        # Other queries' listings of the same department first: what a lexical ranker drifts to.
        others = [(q, d) for q, ds in own.items() if q != query.pk for d in ds]
        near = [d for q, d in others if department[q] == department[query.pk]]
        far = [d for q, d in others if department[q] != department[query.pk]]
        distractors = rng.sample(near, min(len(near), DISTRACTORS))
        distractors += rng.sample(far, DISTRACTORS - len(distractors))
        for d in distractors:
            world.truth[(query.pk, d)] = 1
        docs = own[query.pk] + distractors
        grade = {d: world.truth[(query.pk, d)] for d in docs}

        # The baseline is mediocre where the candidate is better, and good where it is worse.
        weight, noise = (1.0, 0.6) if spec.candidate == "worse" else (0.4, 1.0)
        base = {d: weight * grade[d] + rng.gauss(0, noise) for d in docs}
        base_ranked = _ranked({d: round(12 + 4 * s, 3) for d, s in base.items()}, ext_id)
        base_ranked = base_ranked[: rng.randint(12, len(docs))]
        if spec.candidate == "same":
            # Same order with the candidate's own, strictly decreasing scores.
            cand_ranked = [(d, round(0.97 - 0.04 * r, 4)) for r, (d, _) in enumerate(base_ranked)]
        else:
            weight, noise = (1.4, 0.5) if spec.candidate == "better" else (0.15, 0.9)
            cand = {d: weight * grade[d] + rng.gauss(0, noise) for d in docs}
            cand_ranked = _ranked(
                {d: round(1 / (1 + math.exp(3 - s)), 4) for d, s in cand.items()}, ext_id
            )
            cand_ranked = cand_ranked[: rng.randint(12, len(docs))]
        for run, ranked in ((baseline, base_ranked), (candidate, cand_ranked)):
            entries += [
                m.RunEntry(run=run, query=query, document_id=d, rank=r, score=s)
                for r, (d, s) in enumerate(ranked, start=1)
            ]
    m.RunEntry.objects.bulk_create(entries, batch_size=1000)
    return baseline, candidate


def _pool(world: World, runs: tuple[m.Run, m.Run]) -> None:
    """The union of both runs' top 10 per query (TREC-style pooling), cut in the app's own
    ranking order, which the side-by-side lists use too."""
    pool_from_runs(campaign=world.campaign, runs=runs, depth=DEPTH)
    base, cand = (run_top_k(run, DEPTH) for run in runs)
    for query in world.queries:
        world.tops[query.pk] = (base[query.pk].tolist(), cand[query.pk].tolist())


def _comparison(world: World, baseline: m.Run, candidate: m.Run) -> m.Comparison:
    comparison = m.Comparison.objects.create(
        campaign=world.campaign,
        name=f"{BASELINE} vs {CANDIDATE}",
        baseline=baseline,
        candidate=candidate,
        unit=m.ComparisonUnit.LIST,
        depth=DEPTH,
        raters_per_task=2,
        min_queries=20,
        seed=SEED,
    )
    m.SxsTask.objects.bulk_create(
        m.SxsTask(
            comparison=comparison,
            query=query,
            # Identical top 10s count as Same without asking anyone.
            identical=world.tops[query.pk][0] == world.tops[query.pk][1],
        )
        for query in world.queries
    )
    return comparison

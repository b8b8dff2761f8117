"""Each rater's Dawid–Skene confusion matrix on the rater quality page (#18): the campaign's real
grades and the answers to gold (clamped to their accepted labels), against crowd-kit's
DawidSkene fitted on the same answers with the same gold as its true labels."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotate.models import GoldItem, Grade
from annotate.selectors.confusion import rater_confusions
from annotate.services.campaigns import membership_set
from annotate.services.gold import gold_item_set
from annotate.services.quality import answers_exclude
from tests.annotate.judgment_data import pool_item

pd = pytest.importorskip("pandas")
crowdkit = pytest.importorskip("crowdkit.aggregation")

pytestmark = pytest.mark.django_db

RATERS, ITEMS, PER_ITEM, GOLD_EVERY = 6, 80, 3, 5


@pytest.fixture
def answered(personas):
    """Raters of accuracies 0.5-0.95 (one always answering the label above the true one) on
    ITEMS items; every GOLD_EVERY-th item gold with its true label."""
    campaign = personas.campaign
    labels = list(campaign.labels.order_by("grade", "position"))
    rng = np.random.default_rng(7)
    raters = [personas.rater]
    for n in range(1, RATERS):
        user = get_user_model().objects.create_user(username=f"r{n}", password="x")
        membership_set(campaign=campaign, user=user, role="rater")
        raters.append(user)
    accuracy = np.linspace(0.5, 0.95, RATERS)
    k = len(labels)
    items, truth, grades = [], rng.integers(0, k, size=ITEMS), []
    for i in range(ITEMS):
        item = pool_item(campaign, f"q{i // 10}", f"d{i}")
        items.append(item)
        for r in rng.choice(RATERS, size=PER_ITEM, replace=False):
            if r == 0:
                given = (truth[i] + 1) % k  # adversarial: always the next label
            elif rng.random() < accuracy[r]:
                given = truth[i]
            else:
                given = rng.choice([c for c in range(k) if c != truth[i]])
            grades.append(Grade(pool_item=item, rater=raters[r], label=labels[given]))
    Grade.objects.bulk_create(grades)
    for i in range(0, ITEMS, GOLD_EVERY):
        gold_item_set(
            campaign=campaign,
            manager=personas.manager,
            item_id=items[i].pk,
            label_id=labels[truth[i]].pk,
        )
    return campaign, labels


def crowdkit_errors(campaign, labels) -> dict[int, np.ndarray]:
    """crowd-kit's errors_ per rater id as true × given, fitted on the same answers."""
    rows = Grade.objects.filter(pool_item__campaign=campaign).values_list(
        "pool_item_id", "rater_id", "label_id"
    )
    code = {label.pk: c for c, label in enumerate(labels)}
    frame = pd.DataFrame(
        [(item, rater, code[label]) for item, rater, label in rows],
        columns=["task", "worker", "label"],
    )
    gold = GoldItem.objects.filter(pool_item__campaign=campaign).values_list(
        "pool_item_id", "label_id"
    )
    true_labels = pd.Series({item: code[label] for item, label in gold})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = crowdkit.DawidSkene(n_iter=100, tol=1e-5).fit(frame, true_labels=true_labels)
    k = len(labels)
    matrices = {}
    for (worker, given), row in model.errors_.iterrows():
        matrix = matrices.setdefault(int(worker), np.zeros((k, k)))
        matrix[:, int(given)] = [row.get(c, 0.0) for c in range(k)]
    return matrices


def test_the_matrices_are_crowd_kits(answered, django_assert_num_queries):
    campaign, labels = answered
    with django_assert_num_queries(3):
        ours = rater_confusions(campaign)
    theirs = crowdkit_errors(campaign, labels)
    assert ours.names == [label.name for label in labels]
    assert set(ours.by_rater) == set(theirs)
    for rater, matrix in ours.by_rater.items():
        matrix = np.array(matrix)
        assert np.allclose(matrix.sum(axis=1), 1.0)
        assert np.abs(matrix - theirs[rater]).max() < 0.02, rater
    # The adversarial rater's matrix says so: the next label, nearly always.
    k = len(labels)
    adversary = np.array(ours.by_rater[campaign.memberships.get(user__username="rater").user_id])
    assert all(adversary[c, (c + 1) % k] > 0.8 for c in range(k))


def test_the_page_shows_each_raters_matrix(answered, personas):
    campaign, labels = answered
    client = Client()
    client.force_login(personas.manager)
    url = reverse("metrics:raters", kwargs={"slug": campaign.slug})
    html = client.get(url).content.decode()
    assert html.count('data-testid="confusion"') == RATERS
    assert "Confusion matrix (Dawid–Skene)" in html


def test_an_excluded_raters_answers_leave_the_fit(answered, personas):
    campaign, _ = answered
    before = rater_confusions(campaign).by_rater
    answers_exclude(campaign=campaign, rater=personas.rater, by=personas.manager)
    after = rater_confusions(campaign).by_rater
    assert personas.rater.pk in before and personas.rater.pk not in after
    assert set(after) == set(before) - {personas.rater.pk}

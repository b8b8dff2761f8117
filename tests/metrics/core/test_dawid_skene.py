"""Dawid–Skene (metrics/core/dawid_skene.py) against crowd-kit's DawidSkene on generated answers
whose raters have known accuracies, from the same majority-vote start: the same labels on at
least 99% of items and confusion matrices within 0.02; and with a fifth of the raters
adversarial, better labels than the majority's by at least five points."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from metrics.core.aggregate import _majority
from metrics.core.dawid_skene import dawid_skene

crowdkit = pytest.importorskip("crowdkit.aggregation")

CLASSES = 3


def answers(seed: int, *, raters: int = 30, items: int = 600, per_item: int = 5, bad: float = 0.0):
    """Answers of raters with accuracies drawn from 0.55-0.95 (a share `bad` of them adversarial:
    they answer the class after the true one), each item seen by `per_item` raters."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(CLASSES, size=items, p=[0.5, 0.3, 0.2])
    accuracy = rng.uniform(0.55, 0.95, size=raters)
    adversarial = rng.random(raters) < bad
    rows = []
    for i in range(items):
        for r in rng.choice(raters, size=per_item, replace=False):
            if adversarial[r]:
                label = (truth[i] + 1) % CLASSES if rng.random() < 0.9 else truth[i]
            elif rng.random() < accuracy[r]:
                label = truth[i]
            else:
                label = rng.choice([c for c in range(CLASSES) if c != truth[i]])
            rows.append((i, int(r), int(label)))
    item, rater, label = (np.array(column) for column in zip(*rows, strict=True))
    return truth, item, rater, label


def crowdkit_fit(item, rater, label):
    frame = pd.DataFrame({"task": item, "worker": rater, "label": label})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = crowdkit.DawidSkene(n_iter=100, tol=1e-5).fit(frame)
    labels = model.labels_.reindex(range(item.max() + 1)).to_numpy().astype(int)
    confusion = np.zeros((rater.max() + 1, CLASSES, CLASSES))
    errors = model.errors_
    for (worker, observed), row in errors.iterrows():
        confusion[int(worker), int(observed)] = [row.get(c, 0.0) for c in range(CLASSES)]
    return labels, confusion


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_labels_and_confusion_matrices_as_crowd_kit(seed):
    _, item, rater, label = answers(seed)
    ours = dawid_skene(item, rater, label, classes=CLASSES)
    theirs_labels, theirs_confusion = crowdkit_fit(item, rater, label)
    assert np.mean(ours.labels == theirs_labels) >= 0.99
    assert np.abs(ours.confusion - theirs_confusion).max() <= 0.02
    assert np.allclose(ours.confusion.sum(axis=1), 1.0)


def test_with_a_fifth_of_the_raters_adversarial_it_beats_the_majority():
    truth, item, rater, label = answers(7, bad=0.2)
    ours = dawid_skene(item, rater, label, classes=CLASSES)
    order = np.lexsort((label, item))
    majority = _majority(item[order], label[order].astype(float)).astype(int)
    ds_accuracy = np.mean(ours.labels == truth)
    majority_accuracy = np.mean(majority == truth)
    print(f"Dawid-Skene {ds_accuracy:.3f} vs majority {majority_accuracy:.3f}")
    assert ds_accuracy - majority_accuracy >= 0.05


def test_gold_items_keep_their_accepted_class_and_teach_the_confusion():
    truth, item, rater, label = answers(11, items=200)
    gold = {i: int(truth[i]) for i in range(0, 200, 4)}
    fit = dawid_skene(item, rater, label, classes=CLASSES, gold=gold)
    assert all(fit.labels[i] == c for i, c in gold.items())
    assert np.allclose(fit.posteriors[list(gold)].max(axis=1), 1.0)


def test_bad_input_is_refused_and_no_answers_give_an_empty_fit():
    with pytest.raises(ValueError, match="class codes"):
        dawid_skene(np.array([0]), np.array([0]), np.array([5]), classes=3)
    with pytest.raises(ValueError, match="same length"):
        dawid_skene(np.array([0, 1]), np.array([0]), np.array([1]), classes=3)
    empty = dawid_skene(np.array([]), np.array([]), np.array([]), classes=3)
    assert empty.labels.size == 0 and np.allclose(empty.priors, 1 / 3)

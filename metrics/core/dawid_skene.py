"""Dawid–Skene: labels weighted by each rater's measured reliability (numpy only).

A. P. Dawid and A. M. Skene, "Maximum likelihood estimation of observer error-rates using the
EM algorithm", Applied Statistics 28(1), 1979. Each rater r has a confusion matrix
e_r[k, c] = P(rater answers k | the true label is c), and the classes a prior p[c]. EM
alternates:

- E-step: P(z_i = c) ∝ p[c] · Π over the answers (r, k) to item i of e_r[k, c];
- M-step: p = the mean of the item posteriors; e_r[k, c] = Σ over r's answers k of P(z_i = c),
  each column normalised over k (clipped at 1e-10 first, so no log of zero).

It starts from majority vote (each item's share of votes per class), so a rater who agrees with
the others starts trusted; items with a known answer (gold) keep it, clamped to one class, in
every step. It stops when the evidence lower bound gains less than `tol` per answer, as
crowd-kit's DawidSkene does (tests/metrics/core/test_dawid_skene.py compares the two). A tie
between classes goes to the lower class, as the majority rule's does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_EPS = 1e-10


@dataclass(frozen=True)
class DawidSkene:
    """The fit: per item the most probable class and the posterior over classes; per rater the
    confusion matrix (observed class × true class, columns sum to 1); the class priors."""

    labels: np.ndarray  # (items,) int: class index
    posteriors: np.ndarray  # (items, classes)
    confusion: np.ndarray  # (raters, classes, classes)
    priors: np.ndarray  # (classes,)
    iterations: int


def dawid_skene(
    item: np.ndarray,
    rater: np.ndarray,
    answer: np.ndarray,
    *,
    classes: int,
    gold: dict[int, int] | None = None,
    max_iter: int = 100,
    tol: float = 1e-5,
) -> DawidSkene:
    """Fit Dawid–Skene to answers given as parallel arrays of codes: `item` in 0..items-1,
    `rater` in 0..raters-1, `answer` in 0..classes-1. `gold` maps an item code to its accepted
    class."""
    item, rater, answer = (np.asarray(a, dtype=np.int64) for a in (item, rater, answer))
    if not (item.size == rater.size == answer.size):
        raise ValueError("item, rater and answer must have the same length")
    if answer.size and (answer.min() < 0 or answer.max() >= classes):
        raise ValueError(f"answers must be class codes 0..{classes - 1}")
    n_items = int(item.max()) + 1 if item.size else 0
    n_raters = int(rater.max()) + 1 if rater.size else 0
    if item.size == 0:
        return DawidSkene(
            labels=np.zeros(0, dtype=np.int64),
            posteriors=np.zeros((0, classes)),
            confusion=np.zeros((0, classes, classes)),
            priors=np.full(classes, 1.0 / classes),
            iterations=0,
        )
    clamp = _gold_clamp(gold or {}, n_items, classes)
    posteriors = _majority_share(item, answer, n_items, classes)
    posteriors = _clamped(posteriors, clamp)
    priors = posteriors.mean(axis=0)
    confusion = _m_step(item, rater, answer, posteriors, n_raters, classes)
    bound = -np.inf
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is reported)
        posteriors = _clamped(_e_step(item, rater, answer, priors, confusion), clamp)
        priors = posteriors.mean(axis=0)
        confusion = _m_step(item, rater, answer, posteriors, n_raters, classes)
        new_bound = _lower_bound(item, rater, answer, posteriors, priors, confusion) / item.size
        if new_bound - bound < tol:
            break
        bound = new_bound
    return DawidSkene(
        labels=np.argmax(posteriors, axis=1),  # the first maximum: the lower class on a tie
        posteriors=posteriors,
        confusion=confusion,
        priors=priors,
        iterations=iterations,
    )


def _majority_share(item: np.ndarray, answer: np.ndarray, n_items: int, k: int) -> np.ndarray:
    votes = np.zeros((n_items, k))
    np.add.at(votes, (item, answer), 1.0)
    totals = votes.sum(axis=1, keepdims=True)
    return np.divide(votes, totals, out=np.full_like(votes, 1.0 / k), where=totals > 0)


def _gold_clamp(gold: dict[int, int], n_items: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    codes = np.fromiter((i for i in gold if 0 <= i < n_items), dtype=np.int64)
    classes = np.fromiter((gold[int(i)] for i in codes), dtype=np.int64, count=codes.size)
    if classes.size and (classes.min() < 0 or classes.max() >= k):
        raise ValueError(f"gold classes must be codes 0..{k - 1}")
    return codes, classes


def _clamped(posteriors: np.ndarray, clamp: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    codes, classes = clamp
    if codes.size:
        posteriors[codes] = 0.0
        posteriors[codes, classes] = 1.0
    return posteriors


def _m_step(
    item: np.ndarray,
    rater: np.ndarray,
    answer: np.ndarray,
    posteriors: np.ndarray,
    n_raters: int,
    k: int,
) -> np.ndarray:
    confusion = np.zeros((n_raters, k, k))
    np.add.at(confusion, (rater, answer), posteriors[item])
    confusion = np.clip(confusion, _EPS, None)
    return confusion / confusion.sum(axis=1, keepdims=True)


def _e_step(
    item: np.ndarray,
    rater: np.ndarray,
    answer: np.ndarray,
    priors: np.ndarray,
    confusion: np.ndarray,
) -> np.ndarray:
    n_items, k = int(item.max()) + 1, priors.size
    log_like = np.zeros((n_items, k))
    np.add.at(log_like, item, np.log(confusion[rater, answer]))
    log_like += np.log(np.clip(priors, _EPS, None))
    log_like -= log_like.max(axis=1, keepdims=True)
    likely = np.exp(log_like)
    return likely / likely.sum(axis=1, keepdims=True)


def _lower_bound(
    item: np.ndarray,
    rater: np.ndarray,
    answer: np.ndarray,
    posteriors: np.ndarray,
    priors: np.ndarray,
    confusion: np.ndarray,
) -> float:
    """The evidence lower bound, as crowd-kit computes it (its stopping rule)."""
    log_terms = np.log(confusion[rater, answer]) + np.log(np.clip(priors, _EPS, None))
    joint = float((posteriors[item] * log_terms).sum())
    clipped = np.clip(posteriors, _EPS, None)
    entropy = float(-(np.log(clipped) * clipped).sum())
    return joint + entropy

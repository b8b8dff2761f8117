"""confseq's betting confidence sequence, as a test reference (not used by the app).

The functions below are copied verbatim from confseq 0.0.11 (Ian Waudby-Smith and Steven R.
Howard; https://github.com/gostevehoward/confseq, src/confseq/betting.py, betting_strategies.py
and misc.py), the implementation by the authors of Waudby-Smith and Ramdas (JRSS-B 2024). The
package itself does not install here (its C++ part needs Boost); these functions are pure
Python and numpy. Only the module imports were cut (the parallel branch, which names
`multiprocess` and `info`, is never taken here); the code is otherwise unchanged.

MIT License

Copyright (c) 2021 confseq developers

Permission is hereby granted, free of charge, to any person obtaining a copy of this software
and associated documentation files (the "Software"), to deal in the Software without
restriction, including without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING
BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""

# ruff: noqa
# fmt: off

import math

import numpy as np

def get_running_intersection(
    l: np.ndarray, u: np.ndarray
):
    return np.maximum.accumulate(l), np.minimum.accumulate(u)


def lambda_predmix_eb(
    x,
    truncation=math.inf,
    alpha=0.05,
    fixed_n=None,
    prior_mean=1 / 2,
    prior_variance=1 / 4,
    fake_obs=1,
    scale=1,
):
    """
    Predictable mixture lambda values or "bets"

    Parameters
    ----------
    x, array-like of 0-1 bounded reals
        Observed data

    truncation, positive real or infinity
        Level at which to truncate lambda

    alpha, (0, 1)-valued real
        Significance level in (0, 1)

    fixed_n, positive integer or None
        Sample size for which lambda should be optimized.
        If left as None, lambda will scale like 1/sqrt{t log t}

    prior_mean, [0, 1]-valued real
        Prior mean to use for regularized sample mean

    prior_variance, (0, 1/4]-valued real
        Prior variance to use for regularized sample variance

    fake_obs, positive integer
        Number of 'fake observations' to add.
        Larger values correspond to more regularization near
        `prior_mean` and `prior_variance`

    scale, positive real
        Scale by which to multiply final lambda output.
        For most applications, this should be left as 1

    Returns
    -------
    lambdas, array-like of positive reals
        A (numpy) array of lambda values or "bets"
    """
    t = np.arange(1, len(x) + 1)
    mu_hat_t = np.minimum((fake_obs * prior_mean + np.cumsum(x)) / (t + fake_obs), 1)
    mu_hat_tminus1 = np.append(prior_mean, mu_hat_t[0 : (len(x) - 1)])
    sigma2_t = (fake_obs * prior_variance + np.cumsum(np.power(x - mu_hat_t, 2))) / (
        t + fake_obs
    )
    sigma2_tminus1 = np.append(prior_variance, sigma2_t[0 : (len(x) - 1)])
    if fixed_n is None:
        lambdas = np.sqrt(2 * np.log(1 / alpha) / (t * np.log(1 + t) * sigma2_tminus1))
    else:
        lambdas = np.sqrt(2 * np.log(1 / alpha) / (fixed_n * sigma2_tminus1))

    lambdas[np.isnan(lambdas)] = 0

    lambdas = np.minimum(truncation, lambdas)

    return lambdas * scale


def betting_mart(
    x,
    m,
    alpha=0.05,
    lambdas_fn_positive=None,
    lambdas_fn_negative=None,
    N=None,
    convex_comb=False,
    theta=1 / 2,
    trunc_scale=1 / 2,
    m_trunc=True,
):
    """
    Betting martingale for a given sequence
    of data and a null mean value.

    Parameters
    ----------
    x, array-like
        The vector of observations.

    m, real
        Null value for the mean of x

    alpha, real
        Significance level between 0 and 1.

    lambdas_fn_postive, bivariate function or None
        Function of `x` and `m` which generates an array-like
        of bets with the same length as `x`.

    lambdas_fn_negative=None, bivariate function or None
        Same as above but for the negative capital process.
        This will be set to lambdas_fn_positive if
        left as None.

    N, positive integer or None
        Population size if sampling WoR

    convex_comb, boolean
        Should a convex combination of martingales be taken?
        If True, the process will be theta*pcp + (1-theta)*ncp,
        and if False, it will be max(theta*pcp, (1-theta)*ncp) where
        pcp and ncp are the positive and negative capital processes,
        respectively.

    theta, [0, 1]-valued real
        Positive/negative capital process weight as
        defined in `convex_comb`

    trunc_scale, (0, 1]-valued real
        The factor by which to multiply the truncation defined
        in `m_trunc`. Leaving this as 1 will perform no
        additional truncation.

    m_trunc, boolean
        Should truncation be used based on m? If True, then truncation
        will be given by trunc_scale * 1/m or trunc_scale * 1/(1-m)
        depending on the capital process. If False, then truncation
        will be given by trunc_scale.


    Returns
    -------
    mart, array-like
        The martingale that results from the observed x
    """

    assert 0 <= theta <= 1

    # if theta == 1:
    #     assert all(x >= 0)
    # elif theta == 0:
    #     assert all(x <= 1)
    # else:
    #     assert all(x >= 0) and all(x <= 1)

    if lambdas_fn_positive is None:
        lambdas_fn_positive = lambda x, m: lambda_predmix_eb(x, alpha=alpha * theta)

    if lambdas_fn_negative is None:
        lambdas_fn_negative = lambda x, m: lambda_predmix_eb(
            x, alpha=alpha * (1 - theta)
        )

    if N is not None:
        t = np.arange(1, len(x) + 1)
        S_t = np.cumsum(x)
        S_tminus1 = np.append(0, S_t[0 : (len(x) - 1)])
        mu_t = (N * m - S_tminus1) / (N - (t - 1))
    else:
        mu_t = np.repeat(m, len(x))

    assert 0 < trunc_scale <= 1

    if theta > 0:
        lambdas_positive = lambdas_fn_positive(x, m)
        # if we want to truncate with m
        if m_trunc:
            with np.errstate(divide="ignore"):
                lambdas_positive = np.minimum(lambdas_positive, trunc_scale / mu_t)
                lambdas_positive = np.maximum(
                    lambdas_positive, -trunc_scale / (1 - mu_t)
                )
        else:
            lambdas_positive = np.minimum(lambdas_positive, trunc_scale)
            lambdas_positive = np.maximum(lambdas_positive, -trunc_scale)

        with np.errstate(invalid="ignore"):
            multiplicand_positive = 1 + lambdas_positive * (x - mu_t)

        # Use convention that inf * 0 = 0. We still have
        # a martingale under the null
        multiplicand_positive[
            np.logical_and(lambdas_positive == math.inf, x - mu_t == 0)
        ] = 1

        with np.errstate(invalid="ignore"):
            capital_process_positive = np.cumprod(multiplicand_positive)

        # If we get nans from 0 * inf, this should be 0
        capital_process_positive[np.isnan(capital_process_positive)] = 0
    else:
        capital_process_positive = np.repeat(0, len(x))

    if theta < 1:
        lambdas_negative = lambdas_fn_negative(x, m)
        if m_trunc:
            with np.errstate(divide="ignore"):
                lambdas_negative = np.minimum(
                    lambdas_negative, trunc_scale / (1 - mu_t)
                )
                lambdas_negative = np.maximum(lambdas_negative, -trunc_scale / mu_t)
        else:
            lambdas_negative = np.minimum(lambdas_negative, trunc_scale)
            lambdas_negative = np.maximum(lambdas_negative, -trunc_scale)

        with np.errstate(invalid="ignore"):
            multiplicand_negative = 1 - lambdas_negative * (x - mu_t)

        multiplicand_negative[
            np.logical_and(lambdas_negative == math.inf, x - mu_t == 0)
        ] = 1

        with np.errstate(invalid="ignore"):
            capital_process_negative = np.cumprod(multiplicand_negative)

        capital_process_negative[np.isnan(capital_process_negative)] = 0
    else:
        capital_process_negative = np.repeat(0, len(x))

    if theta == 1:
        capital_process = capital_process_positive
    elif theta == 0:
        capital_process = capital_process_negative
    else:
        if convex_comb:
            capital_process = (
                theta * capital_process_positive
                + (1 - theta) * capital_process_negative
            )
        else:
            capital_process = np.maximum(
                theta * capital_process_positive, (1 - theta) * capital_process_negative
            )

    # If mu_t < 0 or mu_t > 1, we cannot be under the null
    capital_process[np.logical_or(mu_t < 0, mu_t > 1)] = math.inf

    assert not any(np.isnan(capital_process))

    assert all(capital_process >= 0)

    return capital_process


def betting_cs(
    x,
    lambdas_fns_positive=None,
    lambdas_fns_negative=None,
    alpha=0.05,
    N=None,
    breaks=1000,
    running_intersection=False,
    parallel=False,
    convex_comb=False,
    theta=1 / 2,
    trunc_scale=1 / 2,
    m_trunc=True,
):
    """
    Betting-based confidence sequence

    Parameters
    ----------
    x, array-like
        The vector of observations between 0 and 1.

    alpha, real
        Significance level between 0 and 1.

    lambdas_fns_postive, list of bivariate functions or None
        Function of `x` and `m` which generates an array-like
        of bets with the same length as `x`.

    lambdas_fns_negative=None, list of bivariate functions or None
        Same as above but for the negative capital process.
        This will be set to lambdas_fn_positive if
        left as None.

    N, positive integer or None
        Population size if sampling WoR

    breaks, positive integer
        Number of breaks in the grid for constructing the confidence sequence

    running_intersection, boolean
        Should the running intersection be taken?

    parallel, boolean
        Should computation be parallelized?

    convex_comb, boolean
        Should a convex combination of martingales be taken?
        If True, the process will be theta*pcp + (1-theta)*ncp,
        and if False, it will be max(theta*pcp, (1-theta)*ncp) where
        pcp and ncp are the positive and negative capital processes,
        respectively.

    theta, [0, 1]-valued real
        Positive/negative capital process weight as
        defined in `convex_comb`

    trunc_scale, (0, 1]-valued real
        The factor by which to multiply the truncation defined
        in `m_trunc`. Leaving this as 1 will perform no
        additional truncation.

    m_trunc, boolean
        Should truncation be used based on m? If True, then truncation
        will be given by trunc_scale * 1/m or trunc_scale * 1/(1-m)
        depending on the capital process. If False, then truncation
        will be given by trunc_scale.


    Returns
    -------
    l, array-like
        Lower confidence sequence for the mean

    u, array-like
        Upper confidence sequence for the mean
    """

    if lambdas_fns_positive is None:
        lambdas_fns_positive = lambda x, m: lambda_predmix_eb(x, alpha=alpha * theta)

    if lambdas_fns_negative is None:
        lambdas_fns_negative = lambda x, m: lambda_predmix_eb(
            x, alpha=alpha * (1 - theta)
        )

    # If only passed a single function, put it into a list
    if np.shape(lambdas_fns_positive) == ():
        lambdas_fns_positive = [lambdas_fns_positive]
    if np.shape(lambdas_fns_negative) == ():
        lambdas_fns_negative = [lambdas_fns_negative]

    assert len(lambdas_fns_positive) == len(lambdas_fns_negative)

    mart_fn = lambda x, m: diversified_betting_mart(
        x,
        m,
        alpha=alpha,
        lambdas_fns_positive=lambdas_fns_positive,
        lambdas_fns_negative=lambdas_fns_negative,
        N=N,
        theta=theta,
        convex_comb=convex_comb,
        trunc_scale=trunc_scale,
        m_trunc=m_trunc,
    )

    l, u = cs_from_martingale(
        x,
        mart_fn,
        breaks=breaks,
        alpha=alpha,
        N=N,
        parallel=parallel,
        running_intersection=running_intersection,
    )

    return l, u


def diversified_betting_mart(
    x,
    m,
    lambdas_fns_positive,
    lambdas_fns_negative=None,
    lambdas_weights=None,
    alpha=None,
    N=None,
    convex_comb=False,
    theta=1 / 2,
    trunc_scale=1 / 2,
    m_trunc=True,
):
    mart_positive = np.zeros(len(x))
    mart_negative = np.zeros(len(x))

    # Number of betting strategies to use
    K = len(lambdas_fns_positive)

    if lambdas_weights is None:
        lambdas_weights = np.repeat(1 / K, K)

    if lambdas_fns_negative is None:
        lambdas_fns_negative = lambdas_fns_positive

    assert len(lambdas_fns_positive) == len(lambdas_fns_negative)

    for k in range(K):
        lambdas_fn_positive = lambdas_fns_positive[k]
        lambdas_fn_negative = lambdas_fns_negative[k]

        if theta > 0:
            summand_positive = (
                (
                    lambdas_weights[k]
                    * betting_mart(
                        x,
                        m,
                        alpha=alpha,
                        lambdas_fn_positive=lambdas_fn_positive,
                        lambdas_fn_negative=lambdas_fn_negative,
                        N=N,
                        theta=1,
                        trunc_scale=trunc_scale,
                        m_trunc=m_trunc,
                    )
                )
                if lambdas_weights[k] != 0
                else 0
            )
            mart_positive = mart_positive + summand_positive

        if theta < 1:
            summand_negative = (
                (
                    lambdas_weights[k]
                    * betting_mart(
                        x,
                        m,
                        alpha=alpha,
                        lambdas_fn_positive=lambdas_fn_positive,
                        lambdas_fn_negative=lambdas_fn_negative,
                        N=N,
                        theta=0,
                        trunc_scale=trunc_scale,
                        m_trunc=m_trunc,
                    )
                )
                if lambdas_weights[k] != 0
                else 0
            )
            mart_negative = mart_negative + summand_negative

    if theta == 1:
        mart = mart_positive
    elif theta == 0:
        mart = mart_negative
    else:
        mart = (
            theta * mart_positive + (1 - theta) * mart_negative
            if convex_comb
            else np.maximum(theta * mart_positive, (1 - theta) * mart_negative)
        )

    assert not any(np.isnan(mart))

    return mart


def cs_from_martingale(
    x,
    mart_fn,
    breaks=1000,
    alpha=0.05,
    N=None,
    running_intersection=False,
    parallel=False,
    log_scale=False,
):
    """
    Given a test supermartingale, produce a confidence sequence for
    any parameter using the grid method, assuming the parameter is
    in [0, 1]

    Parameters
    ----------
    x, array-like
        The vector of observations between 0 and 1.

    mart_fn, bivariate function
        A function which takes data `x` and a candidate mean `m`
        and outputs a (super)martingale.

    breaks, positive integer
        Number of breaks in the grid for constructing the confidence sequence

    alpha, real
        Significance level between 0 and 1.

    N, positive integer or None
        Population size if sampling WoR

    running_intersection, boolean
        Should the running intersection be taken?

    parallel, boolean
        Should computation be parallelized?

    Returns
    -------
    l, array-like
        Lower confidence sequence for the parameter
    u, array-like
        Upper confidence sequence for the parameter
    """
    possible_m = np.arange(0, 1 + 1 / breaks, step=1 / breaks)
    confseq_mtx = np.zeros((len(possible_m), len(x)))

    if log_scale:
        threshold = np.log(1 / alpha)
    else:
        threshold = 1 / alpha

    if parallel:
        n_cores = multiprocess.cpu_count()
        info("Using " + str(n_cores) + " cores")
        with multiprocess.Pool(n_cores) as p:
            result = p.map(lambda m: mart_fn(x, m), possible_m)
            confseq_mtx = np.vstack(result) <= threshold
    else:
        for i in np.arange(0, len(possible_m)):
            m = possible_m[i]
            confseq_mtx[i, :] = mart_fn(x, m) <= threshold

    l = np.zeros(len(x))
    u = np.ones(len(x))

    for j in np.arange(0, len(x)):
        where_in_cs = np.where(confseq_mtx[:, j])
        if len(where_in_cs[0]) == 0:
            l[j] = 0
            u[j] = 1
        else:
            l[j] = possible_m[where_in_cs[0][0]]
            u[j] = possible_m[where_in_cs[0][-1]]
    l = np.maximum(0, l - 1 / breaks)
    u = np.minimum(1, u + 1 / breaks)

    if N is not None:
        logical_l, logical_u = logical_cs(x, N)

        l = np.maximum(l, logical_l)
        u = np.minimum(u, logical_u)

    return get_running_intersection(l, u) if running_intersection else (l, u)


def logical_cs(x, N):
    """
    The 1-dimensional logical confidence sequence for sampling without
    replacement. This is essentially the CS that would be
    known regardless of the underlying martingale being used.
    Specifically, if the cumulative sum at time t, S_t is equal to
    5 and N is 10, then the true mean cannot be any less than 0.5, assuming
    all observations are between 0 and 1.

    Parameters
    ----------
    x, array-like of reals between 0 and 1
        The observed bounded random variables.
    N, integer
        The size of the finite population

    Returns
    -------
    l, array-like
        Lower logical confidence sequence for the parameter
    u, array-like
        Upper logical confidence sequence for the parameter
    """
    t = np.arange(1, len(x) + 1)

    S_t = np.cumsum(x)

    l = S_t / N
    u = 1 - (t - S_t) / N

    return l, u

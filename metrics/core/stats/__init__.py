"""Statistics for launch decisions: GSB, rater agreement and run comparison.

Pure numpy/scipy (never Django), per ``shared/STATISTICS.md``.
"""

from metrics.core.lazy import lazy_exports

# Imported on first use (metrics/core/lazy.py): importing one module of this package
# must not import scipy through the others.
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".agreement": (
            "AgreementSummary",
            "RaterFigures",
            "agreement_summary",
            "cohen_kappa",
            "fleiss_kappa",
            "fleiss_table",
            "krippendorff_alpha",
            "pairwise_agreement",
            "rater_figures",
            "reliability_matrix",
        ),
        ".cluster": (
            "ClusteredVariance",
            "cluster_variance",
            "clustered_variance",
        ),
        ".compare": (
            "QueryChange",
            "RunComparison",
            "benjamini_hochberg",
            "compare_runs",
            "holm",
            "paired_t_test",
            "randomization_test",
        ),
        ".gsb": (
            "Decision",
            "GsbResult",
            "gsb_decision",
            "gsb_from_counts",
            "gsb_from_query_counts",
            "sign_test",
        ),
        ".interval": (
            "delta_se",
            "design_effect",
            "tango_interval",
            "tango_intervals",
            "wald_interval",
        ),
        ".planning": (
            "MoreQueries",
            "more_queries_plan",
        ),
        ".position": (
            "PositionBias",
            "ShuffleCheck",
            "position_bias",
            "shuffle_check",
        ),
        ".sequence": (
            "ConfidenceSequence",
            "betting_confidence_sequence",
            "ever_excluded",
        ),
        ".verdicts": ("gsb_from_verdicts",),
    },
)

"""Statistics for launch decisions: GSB, rater agreement and run comparison.

Pure numpy/scipy (never Django), per ``shared/STATISTICS.md``.
"""

from metrics.core.stats.agreement import (
    AgreementSummary,
    RaterFigures,
    agreement_summary,
    cohen_kappa,
    fleiss_kappa,
    fleiss_table,
    krippendorff_alpha,
    pairwise_agreement,
    rater_figures,
    reliability_matrix,
)
from metrics.core.stats.cluster import ClusteredVariance, cluster_variance, clustered_variance
from metrics.core.stats.compare import (
    QueryChange,
    RunComparison,
    benjamini_hochberg,
    compare_runs,
    holm,
    paired_t_test,
    randomization_test,
)
from metrics.core.stats.gsb import (
    Decision,
    GsbResult,
    gsb_decision,
    gsb_from_counts,
    gsb_from_query_counts,
    sign_test,
)
from metrics.core.stats.interval import (
    delta_se,
    design_effect,
    tango_interval,
    tango_intervals,
    wald_interval,
)
from metrics.core.stats.planning import MoreQueries, more_queries_plan
from metrics.core.stats.position import PositionBias, ShuffleCheck, position_bias, shuffle_check
from metrics.core.stats.sequence import (
    ConfidenceSequence,
    betting_confidence_sequence,
    ever_excluded,
)
from metrics.core.stats.verdicts import gsb_from_verdicts

__all__ = [
    "AgreementSummary",
    "ClusteredVariance",
    "ConfidenceSequence",
    "Decision",
    "GsbResult",
    "MoreQueries",
    "PositionBias",
    "QueryChange",
    "RaterFigures",
    "RunComparison",
    "ShuffleCheck",
    "agreement_summary",
    "benjamini_hochberg",
    "betting_confidence_sequence",
    "cluster_variance",
    "clustered_variance",
    "cohen_kappa",
    "compare_runs",
    "delta_se",
    "design_effect",
    "ever_excluded",
    "fleiss_kappa",
    "fleiss_table",
    "gsb_decision",
    "gsb_from_counts",
    "gsb_from_query_counts",
    "gsb_from_verdicts",
    "holm",
    "krippendorff_alpha",
    "more_queries_plan",
    "paired_t_test",
    "pairwise_agreement",
    "position_bias",
    "randomization_test",
    "rater_figures",
    "reliability_matrix",
    "shuffle_check",
    "sign_test",
    "tango_interval",
    "tango_intervals",
    "wald_interval",
]

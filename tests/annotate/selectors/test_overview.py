"""The campaign page's counts: placeholders are counted as the documents less the known ones
(placeholders are in no index of their own), so the count must still be exact."""

from __future__ import annotations

import pytest

from annotate.models import Document
from annotate.selectors import campaign_overview
from tests.annotate.judgment_data import make_run

pytestmark = pytest.mark.django_db


def test_the_overview_counts_placeholders_and_documents_of_its_own_campaign(personas):
    rows = [("q1", "known", 1, 2.0), ("q1", "ghost", 2, 1.0), ("q1", "ghost2", 3, 0.5)]
    make_run(personas.campaign, "P", rows, placeholders=["ghost", "ghost2"])
    # Another campaign's documents, placeholders or not, count for neither.
    make_run(
        personas.other_campaign, "Q", [("q1", "elsewhere", 1, 1.0)], placeholders=["elsewhere"]
    )
    counts = campaign_overview(personas.campaign)
    assert (counts["documents"], counts["placeholders"]) == (3, 2)
    # A placeholder filled in by a document import is known from then on.
    Document.objects.filter(campaign=personas.campaign, external_id="ghost").update(
        is_placeholder=False, title="Now known"
    )
    counts = campaign_overview(personas.campaign)
    assert (counts["documents"], counts["placeholders"]) == (3, 1)

"""The service behind the report page's "add a label source" forms."""

from __future__ import annotations

import pytest

from annotate.models import LabelSource
from annotate.services.labels.add import label_source_add


def test_it_refuses_an_unknown_action_and_stores_nothing(personas):
    with pytest.raises(ValueError, match="unknown action 'qrels'"):
        label_source_add(campaign=personas.campaign, action="qrels", data={})
    assert not LabelSource.objects.exists()

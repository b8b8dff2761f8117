"""What the derived label sources share: the campaign's scale as an array, source names with
their kind's prefix, opening (or replacing) the source, and writing its labels in bulk."""

from __future__ import annotations

import numpy as np
from django.utils.translation import gettext as _

from annotate.models import Campaign, Document, LabelSource, SourceLabel
from annotate.services.imports.common import Fields, ImportSummary
from annotate.services.imports.fastinsert import insert_rows
from annotate.services.imports.qrels import LABEL_COLUMNS, open_source
from annotate.services.labels.urls import looks_like_url, try_normalise_url

_WRITE_CHUNK = 20_000


def scale_grades(campaign: Campaign) -> np.ndarray:
    """The label scale's grades, highest first (float64)."""
    grades = sorted(campaign.labels.values_list("grade", flat=True), reverse=True)
    if not grades:
        raise ValueError(_("campaign %(slug)s has no label scale") % {"slug": repr(campaign.slug)})
    return np.asarray(grades, dtype=np.float64)


def grade_for(campaign: Campaign, text: str) -> float:
    """A grade of the scale, given as a number or a label name (any case)."""
    text = text.strip()
    by_name = {name.lower(): g for name, g in campaign.labels.values_list("name", "grade")}
    if text.lower() in by_name:
        return float(by_name[text.lower()])
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or value not in by_name.values():
        shown = ", ".join(
            f"{name} = {g:g}" for name, g in campaign.labels.values_list("name", "grade")
        )
        raise ValueError(
            _("%(text)s is not a label of the scale (%(shown)s)")
            % {"text": repr(text), "shown": shown}
        )
    return value


def source_name(kind: str, name: str) -> str:
    """``kind:name``, so a derived source says where it came from (a name that already carries
    the prefix is kept as it is)."""
    name = name.strip()
    if not name:
        raise ValueError(_("the label source needs a name"))
    return name if name.startswith(f"{kind}:") else f"{kind}:{name}"


def source_open(
    *,
    campaign: Campaign,
    name: str,
    kind: str,
    replace: bool,
    params: dict,
    path: str,
    summary: ImportSummary,
) -> LabelSource:
    """The importers' own ``open_source`` (a name taken is an error unless ``replace``, which
    empties the source in place); errors name ``path``."""
    return open_source(
        campaign=campaign,
        name=name,
        kind=kind,
        replace=replace,
        fields=Fields(path),
        summary=summary,
        params=params,
    )


def labels_write(
    *, source: LabelSource, query_id: np.ndarray, document_id: np.ndarray, grade: np.ndarray
) -> int:
    """Insert the labels (unique pairs, as the caller guarantees) below the ORM, in chunks."""
    n = int(grade.size)
    for start in range(0, n, _WRITE_CHUNK):
        stop = min(start + _WRITE_CHUNK, n)
        rows = zip(
            [source.pk] * (stop - start),
            query_id[start:stop].tolist(),
            document_id[start:stop].tolist(),
            grade[start:stop].tolist(),
            strict=True,
        )
        insert_rows(SourceLabel, LABEL_COLUMNS, list(rows))
    return n


def url_map(campaign: Campaign) -> dict[str, list[int]]:
    """normalised URL -> the campaign's documents with that URL (usually one; two spellings of
    one page both get the label). Documents without a readable URL are left out."""
    out: dict[str, list[int]] = {}
    rows = Document.objects.filter(campaign=campaign).exclude(url="").values_list("url", "pk")
    for url, pk in rows.iterator(chunk_size=20_000):
        key = try_normalise_url(url)
        if key is not None:
            out.setdefault(key, []).append(pk)
    return out


class DocumentMatcher:
    """Resolves a document column to the campaign's documents: by external id, by normalised
    URL, or (``auto``) by URL when the value has a scheme and by id otherwise."""

    MODES = ("auto", "id", "url")

    def __init__(self, campaign: Campaign, *, mode: str, doc_map: dict[str, int]) -> None:
        if mode not in self.MODES:
            raise ValueError(
                _("unknown matching rule %(mode)s: use auto, id or url") % {"mode": repr(mode)}
            )
        self.mode = mode
        self.doc_map = doc_map
        self._urls: dict[str, list[int]] | None = None
        self._campaign = campaign

    @property
    def urls(self) -> dict[str, list[int]]:
        if self._urls is None:  # built only if a URL is met: a million normalisations
            self._urls = url_map(self._campaign)
        return self._urls

    def by_url(self, value: str) -> bool:
        return self.mode == "url" or (self.mode == "auto" and looks_like_url(value))

    def match(self, value: str, line: int, fields: Fields) -> list[int]:
        """The documents ``value`` names ([] when none); a value that should be a URL but
        cannot be read as one is an error of its line."""
        if not self.by_url(value):
            pk = self.doc_map.get(value)
            return [] if pk is None else [pk]
        key = try_normalise_url(value)
        if key is None:
            raise fields.fail(line, _("%(value)s is not a URL") % {"value": repr(value)})
        return self.urls.get(key, [])


__all__ = [
    "DocumentMatcher",
    "grade_for",
    "labels_write",
    "scale_grades",
    "source_name",
    "source_open",
    "url_map",
]

"""scripts/screenshots.py in a real Chromium, on a few screens of the Chinese demo at the phone
width: it logs in, waits for the judging screens to be ready and writes full-page pictures."""

from __future__ import annotations

import struct
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from scripts.screenshots import contact_sheet, prepare, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FEW = {"anonymous-login", "rater1-judge", "manager-sxs-preview"}


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG header (its IHDR chunk comes first)."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_it_photographs_screens_as_their_personas(settings, live_server, browser, tmp_path):
    settings.DEBUG = True
    call_command("demo", "--lang", "zh", stdout=StringIO(), stderr=StringIO())
    screens = [s for s in prepare("zh") if f"{s.persona}-{s.name}" in FEW]
    assert len(screens) == len(FEW)

    shots = shoot(browser, live_server.url, screens, language="zh-hans", width=390, out=tmp_path)

    assert [(s.status, s.note) for s in shots] == [(200, "")] * len(FEW)
    for shot in shots:
        width, height = png_size(tmp_path / shot.path)
        assert width == 390 and height >= 844, shot.path
    index = contact_sheet(shots, tmp_path).read_text(encoding="utf-8")
    assert all(shot.path in index for shot in shots)

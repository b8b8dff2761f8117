"""The catalogues compile without GNU gettext (config/messages.py, Babel), to the same
translations as gettext's msgfmt, so `make run` needs nothing but Python."""

from __future__ import annotations

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest

from config.messages import LOCALE, compile_catalogues
from tests.conftest import REQUIRE_ALL_TESTS


def test_babel_compiles_what_msgfmt_compiles(tmp_path: Path):
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        # CI installs gettext (.ci/run) and sets REQUIRE_ALL_TESTS: there a missing msgfmt fails.
        message = "msgfmt (GNU gettext) is the reference here: apt-get install gettext"
        if REQUIRE_ALL_TESTS:
            pytest.fail(message)
        pytest.skip(message)
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy, ignore=shutil.ignore_patterns("*.mo"))
    written = compile_catalogues(copy)
    assert {p.name for p in written} == {"django.mo", "djangojs.mo"}
    for mo in written:
        reference = tmp_path / f"{mo.stem}.gnu.mo"
        subprocess.run([msgfmt, "-o", str(reference), str(mo.with_suffix(".po"))], check=True)
        ours = gettext.GNUTranslations(mo.open("rb"))._catalog  # type: ignore[attr-defined]
        theirs = gettext.GNUTranslations(reference.open("rb"))._catalog  # type: ignore[attr-defined]
        assert len(ours) > 40
        assert {k: v for k, v in ours.items() if k} == {k: v for k, v in theirs.items() if k}
    assert compile_catalogues(copy) == []  # up to date: nothing written again

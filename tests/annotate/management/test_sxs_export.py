"""export_gsb: a comparison's verdicts as the CSV `python -m metrics gsb` reads; the command line
then gives the same GSB, interval and decision as the report page."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest
from django.core.management import CommandError, call_command

from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import Side
from metrics.cli.gsb import main as gsb_main
from metrics.decide.gsb import comparison_report
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


def answer(comparison, raters, plan):
    for rater, wanted in zip(raters, plan, strict=True):
        while held := sxs_queue(rater=rater, comparison=comparison):
            for task, side in held:
                key = task.query.external_id + (f"@{task.position}" if task.position else "")
                cand = "left" if side == Side.LEFT else "right"
                away = "right" if cand == "left" else "left"
                value = wanted[key]
                chosen = {"G": cand, "S": "same", "B": away}[value]
                verdict_submit(
                    rater=rater,
                    task_id=task.pk,
                    chosen=chosen,
                    strength=2 if value == "G" else None,
                )


def cli(path, comparison) -> dict:
    out = io.StringIO()
    argv = [str(path), "--format", "json", "--threshold", str(comparison.min_gsb)]
    argv += ["--confidence", str(comparison.confidence), "--min-queries", "3"]
    with redirect_stdout(out):
        assert gsb_main(argv) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize("unit", ["list", "position"])
def test_the_command_line_agrees_with_the_report(personas, tmp_path, unit):
    lists = distinct_lists(4, depth=2)
    lists["q9"] = (["z1", "z2"], ["z1", "z2"])  # identical
    comparison = make_comparison(
        personas.campaign, lists, unit=unit, raters_per_task=2, min_queries=3, confidence=0.9
    )
    raters = make_raters(personas.campaign, 2)
    keys = [f"q{i}" + ("@1" if unit == "position" else "") for i in range(4)]
    keys += [f"q{i}@2" for i in range(4)] if unit == "position" else []
    plan = [
        {k: v for k, v in zip(keys, "GGSBGSBG", strict=False)},
        {k: v for k, v in zip(keys, "GSSBGGBS", strict=False)},
    ]
    answer(comparison, raters, plan)
    path = tmp_path / "verdicts.csv"
    err = io.StringIO()
    call_command(
        "export_gsb",
        campaign="campaign-a",
        comparison=comparison.name,
        output=str(path),
        stderr=err,
    )
    assert "python -m metrics gsb FILE --threshold 0 --confidence 0.9" in err.getvalue()
    header = path.read_text().splitlines()[0]
    expected_header = "query,verdict,rater,candidate_side,strength,identical"
    assert header == (
        expected_header.replace("rater,", "") if unit == "position" else expected_header
    )
    got = cli(path, comparison)
    report = comparison_report(comparison).result.to_dict()
    for key in ("good", "same", "bad", "gsb", "ci_low", "ci_high", "sign_p", "decision", "deff"):
        assert got[key] == report[key], key
    implied = 2 * (2 if unit == "position" else 1)  # raters per task × identical tasks
    assert got["identical_verdicts"] == report["identical_verdicts"] == implied
    if unit == "list":
        assert got["alpha"] == report["alpha"]


def test_an_unknown_comparison_is_a_clear_error(personas):
    make_comparison(personas.campaign, distinct_lists(1), name="known")
    with pytest.raises(CommandError, match=r"no comparison 'nope' in campaign-a .*'known'"):
        call_command("export_gsb", campaign="campaign-a", comparison="nope")
    with pytest.raises(CommandError, match="no campaign"):
        call_command("export_gsb", campaign="missing", comparison="known")


def test_it_writes_to_standard_output_by_id(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    out = io.StringIO()
    call_command(
        "export_gsb", campaign="campaign-a", comparison=str(comparison.pk), stdout=out,
        stderr=io.StringIO(),
    )  # fmt: skip
    assert out.getvalue() == "query,verdict,rater,candidate_side,identical\n"

"""``python -m metrics`` and ``manage.py evaluate``: output format, options, errors."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from pytrec_eval_ext import RelevanceEvaluator

from metrics import cli
from tests.metrics.trec_data import (
    ROOT,
    parse_trec_output,
    random_collection,
    run_cli,
    write_qrels,
    write_run,
)


def call(*args: str) -> tuple[int, str, str]:
    """The command line in-process (the same main() as python -m metrics)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    qrels, run = random_collection(5)
    return (
        qrels,
        run,
        str(write_qrels(tmp_path / "qrels", qrels)),
        str(write_run(tmp_path / "run", run)),
    )


def test_output_is_trec_evals_format(files):
    qrels, run, q, r = files
    code, out, err = call(q, r, "-m", "map", "-m", "P.5", "-m", "num_rel_ret", "-q")
    assert code == 0
    lines = out.splitlines()
    ref = RelevanceEvaluator(
        {k: v for k, v in qrels.items()}, {"map", "P.5", "num_rel_ret"}, 1, False
    ).evaluate(run)
    expected = []
    for qid in sorted(ref):  # byte order, measures in trec_eval's table order
        expected.append(f"{'num_rel_ret':<22}\t{qid}\t{int(ref[qid]['num_rel_ret'])}")
        expected.append(f"{'map':<22}\t{qid}\t{ref[qid]['map']:6.4f}")
        expected.append(f"{'P_5':<22}\t{qid}\t{ref[qid]['P_5']:6.4f}")
    n = len(ref)
    expected.append(f"{'num_rel_ret':<22}\tall\t{int(sum(v['num_rel_ret'] for v in ref.values()))}")
    expected.append(f"{'map':<22}\tall\t{sum(v['map'] for v in ref.values()) / n:6.4f}")
    expected.append(f"{'P_5':<22}\tall\t{sum(v['P_5'] for v in ref.values()) / n:6.4f}")
    assert lines == expected
    assert "no results in the run" in err  # the generated qrels have queries the run lacks


def test_default_is_the_official_set_with_runid(files):
    _qrels, _run, q, r = files
    code, out, _ = call(q, r)
    assert code == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert out.splitlines()[0] == f"{'runid':<22}\tall\tsys"
    assert "iprec_at_recall_0.00" in names and "P_1000" in names


def test_complete_prints_lines_for_missing_queries_like_trec_eval_10(files):
    qrels, run, q, r = files
    _, out, err = call(q, r, "-m", "num_q", "-m", "map", "-q", "-c")
    parsed = parse_trec_output(out)
    assert int(parsed[("num_q", "all")]) == len(qrels)
    per_query = {qid for (name, qid) in parsed if name == "map" and qid != "all"}
    assert per_query == set(qrels)
    missing = set(qrels) - set(run)
    assert missing  # the generated qrels have queries the run lacks
    for qid in missing:
        assert out.count(f"\t{qid}\t") == 1
        assert f"{'map':<22}\t{qid}\t0.0000\n" in out
    # Byte order throughout, the missing queries among the others, then the all lines.
    assert [line.split("\t")[1] for line in out.splitlines()][: len(qrels)] == sorted(qrels)
    assert err == ""


def test_complete_lines_of_missing_queries_are_trec_eval_10s(files):
    # trec_eval 10 evaluates a missing query on a one-document ranking of a document in no
    # qrels and sets num_ret back to 0: num_rel stays the query's R and gm_map is
    # log(0.00001), which pytrec_eval gives for that ranking too.
    qrels, run, q, r = files
    names = ["num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "P_5"]
    _, out, _ = call(q, r, "-q", "-c", *(x for n in names for x in ("-m", n)))
    parsed = parse_trec_output(out)
    missing = sorted(set(qrels) - set(run))
    totals = dict.fromkeys(names, 0.0)
    for qid in sorted(qrels):
        ranking = run.get(qid, {"ceci_nest_pas_un_docno": 1.0})
        ref = RelevanceEvaluator({qid: qrels[qid]}, {"num_ret", "num_rel", "num_rel_ret",
                                                     "map", "gm_map", "P.5"}).evaluate(
            {qid: ranking}
        )[qid]  # fmt: skip
        if qid in missing:
            ref["num_ret"] = 0.0
            assert ref["num_rel"] > 0 and ref["gm_map"] < -11
        for name in names:
            totals[name] += ref[name]
            text = str(int(ref[name])) if name.startswith("num_") else f"{ref[name]:.4f}"
            assert parsed[(name, qid)] == text, (name, qid)
    # The all lines: sums of num_*, means of the rest, gm_map the geometric mean.
    n = len(qrels)
    assert parsed[("num_rel", "all")] == str(int(totals["num_rel"]))
    assert parsed[("map", "all")] == f"{totals['map'] / n:.4f}"
    assert parsed[("gm_map", "all")] == f"{math.exp(totals['gm_map'] / n):.4f}"


def test_run_lines_with_trailing_fields_are_accepted_with_one_warning(files, tmp_path):
    qrels, run, q, r = files
    text = Path(r).read_text(encoding="utf-8").splitlines()
    path = tmp_path / "trunc"
    path.write_text("".join(f"{line} trailing words\n" for line in text), encoding="utf-8")
    code, out, err = call(q, str(path), "-m", "map", "-m", "runid", "-q")
    assert code == 0
    assert out == call(q, r, "-m", "map", "-m", "runid", "-q")[1]
    assert err.count("more than 6 fields") == 1
    assert f"{path}:1: {len(text)} lines have more than 6 fields" in err


def test_precision_json_and_csv(files):
    _qrels, _run, q, r = files
    _, out4, _ = call(q, r, "-m", "map")
    _, out8, _ = call(q, r, "-m", "map", "--precision", "8")
    v4, v8 = out4.split("\t")[2].strip(), out8.split("\t")[2].strip()
    assert len(v8.split(".")[1]) == 8 and f"{float(v8):.4f}" == v4
    _, out, _ = call(q, r, "-m", "map", "-m", "P.5", "--format", "json", "-q")
    doc = json.loads(out)
    assert doc["measures"] == ["map", "P_5"]
    assert round(doc["all"]["map"], 4) == float(v4)
    assert set(doc["per_query"]) == set(doc["queries"])
    _, out, _ = call(q, r, "-m", "map", "--format", "csv")
    assert out.splitlines() == ["measure,qid,value", f"map,all,{v4}"]


def test_options_reach_the_engine(files):
    qrels, run, q, r = files
    _, lvl2, _ = call(q, r, "-m", "map", "-l2")
    ref = RelevanceEvaluator(qrels, {"map"}, 2, False).evaluate(run)
    assert lvl2.split("\t")[2].strip() == f"{sum(v['map'] for v in ref.values()) / len(ref):.4f}"
    _, linear, _ = call(q, r, "-m", "ndcg_cut.10")
    _, expo, _ = call(q, r, "-m", "ndcg_cut.10", "--gain", "exponential")
    _, mapped, _ = call(q, r, "-m", "ndcg_cut.10", "--gain", "1=1,2=3,3=7")
    assert linear != expo
    assert mapped == expo  # 2^g - 1 for g = 1, 2, 3 is 1, 3, 7
    _, deep, _ = call(q, r, "-m", "num_ret", "-M", "3")
    assert int(deep.split("\t")[2]) <= 3 * len(run)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["QRELS", "RUN", "-m", "mapp"], "unknown measure 'mapp'; valid measures: runid, num_q"),
        (["QRELS", "RUN", "-m", "P.0"], "cut-offs must be positive"),
        (["QRELS", "RUN", "-m", "map.5"], "'map' takes no parameters"),
        (["QRELS", "RUN", "-M", "0"], "-M: expected a positive whole number"),
        (["QRELS", "RUN", "-l", "x"], "-l: expected a number"),
        (["QRELS", "RUN", "--gain", "cubic"], "--gain: expected linear, exponential or a map"),
        (["QRELS", "RUN", "--format", "xml"], "invalid choice: 'xml'"),
        (["QRELS", "RUN", "--bogus"], "unrecognized arguments: --bogus"),
        (["QRELS"], "QRELS and RUN are required"),
        (["-", "-"], "only one input can be standard input"),
        (["QRELS", "RUN", "--scored", "x"], "either QRELS RUN or --scored FILE"),
        (["QRELS", "/nonexistent/run"], "/nonexistent/run: no such file"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(files, args, message):
    _qrels, _run, q, r = files
    args = [q if a == "QRELS" else r if a == "RUN" else a for a in args]
    code, out, err = call(*args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("python -m metrics: ")
    assert message in err


def test_a_bad_line_is_reported_with_file_and_line(tmp_path, files):
    _qrels, _run, q, _r = files
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 oops t\n")
    code, _, err = call(q, str(bad))
    assert (code, err) == (2, f"python -m metrics: {bad}:2: score 'oops' is not a number\n")


def test_no_common_query_is_an_error(tmp_path):
    q = write_qrels(tmp_path / "q", {"a": {"d": 1}})
    r = write_run(tmp_path / "r", {"b": {"d": 1.0}})
    code, _, err = call(str(q), str(r))
    assert code == 2 and "no query has both" in err


def test_a_missing_subcommand_module_is_reported(monkeypatch):
    monkeypatch.setitem(cli.SUBCOMMANDS, "compare", "metrics.cli.no_such_module")
    code, _, err = call("compare", "a", "b", "c")
    assert code == 2
    missing = "(metrics.cli.no_such_module is missing)"
    assert err == f"python -m metrics: the 'compare' command is not available {missing}\n"


def test_the_process_exits_2_without_traceback(tmp_path):
    proc = run_cli(str(tmp_path / "missing"), str(tmp_path / "missing2"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"python -m metrics: {tmp_path / 'missing'}: no such file"
    proc = run_cli("q", "r", "-m", "ndcg_cutt.10")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


def test_manage_py_evaluate_passes_trec_eval_flags_through(files):
    _qrels, _run, q, r = files
    direct = call(q, r, "-q", "-c", "-m", "map", "-l2", "-M5")[1]
    proc = subprocess.run(
        [sys.executable, "manage.py", "evaluate", "-q", "-c", "-m", "map", "-l2", "-M5", q, r],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == direct
    bad = subprocess.run(
        [sys.executable, "manage.py", "evaluate", q, r, "-m", "nope"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stderr.startswith(
        "manage.py evaluate: unknown measure 'nope'"
    )


def test_call_command_evaluate(files):
    from django.core.management import CommandError, call_command

    _qrels, _run, q, r = files
    out = io.StringIO()
    call_command("evaluate", q, r, "-m", "map", "-c", stdout=out, stderr=io.StringIO())
    assert out.getvalue() == call(q, r, "-m", "map", "-c")[1]
    with pytest.raises(CommandError):
        call_command("evaluate", q, r, "-m", "nope", stdout=io.StringIO(), stderr=io.StringIO())


def test_the_core_and_the_cli_do_not_import_django():
    code = (
        "import sys, metrics.core, metrics.cli, metrics.cli.evaluate\n"
        "assert 'django' not in sys.modules, sorted(m for m in sys.modules if 'django' in m)\n"
    )
    env_free = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env_free,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_command_lines_help_names_formats_not_the_projects_seeds():
    from django.core.management import get_commands, load_command_class

    from metrics.cli import evaluate

    helps = [evaluate.build_parser("metrics").format_help()]
    for name in ("import_scored", "evaluate"):
        command = load_command_class(get_commands()[name], name)
        helps.append(command.create_parser("manage.py", name).format_help())
    helps = [" ".join(text.split()) for text in helps]  # argparse wraps lines anywhere
    assert not [text for text in helps if "seed 0" in text.lower()]
    assert "label qid score" in helps[0] and "label qid score" in helps[1]

"""``python -m metrics gsb``: STATISTICS.md's cases through the command line."""

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli.gsb import main

ROOT = Path(__file__).resolve().parents[4]

# G, S, B → gsb, se, ci_low, ci_high, sign_p, decision, conclusive, more_queries (STATISTICS.md).
TABLE = [
    ((1, 1, 2), (-0.25, 0.4146, -0.7783, 0.5047, 1.0, "do_not_launch", False, None)),
    ((60, 90, 50), (0.05, 0.0523, -0.0529, 0.1518, 0.3909, "more_data", False, 1525)),
    ((70, 100, 30), (0.2, 0.048, 0.1041, 0.2923, 0.0001, "launch", True, None)),
    ((30, 100, 70), (-0.2, 0.048, -0.2923, -0.1041, 0.0001, "do_not_launch", True, None)),
    ((0, 10, 0), (0.0, 0.0, -0.2775, 0.2775, 1.0, "do_not_launch", False, None)),
]
KEYS = ("gsb", "se", "ci_low", "ci_high", "sign_p", "decision", "conclusive", "more_queries")


def run_json(capsys, argv):
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def rounded(out):
    return tuple(round(out[k], 4) if isinstance(out[k], float) else out[k] for k in KEYS)


@pytest.mark.parametrize(("counts", "expected"), TABLE)
def test_counts_reproduce_the_table(capsys, counts, expected):
    out = run_json(capsys, ["--counts", *map(str, counts)])
    assert rounded(out) == expected


def test_the_text_summary_reads_like_a_decision(capsys):
    assert main(["--counts", "60", "90", "50"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Decision: MORE DATA NEEDED")
    # A range (the 80% interval for GSB reaches below 0: no upper end), the formula's 1,525 inside.
    assert "at least 119 more queries, with no upper end" in text
    assert "central 1,525, set by the interval clearing the bar" in text
    assert "95% interval [-0.0529, +0.1518]" in text
    assert "p = 0.3909" in text


def test_only_clustered_figures_are_shown_no_wald_cross_check(capsys):
    # The unclustered Wald interval of seed 002 ([−1.0626, 0.5626]) is no longer printed.
    assert main(["--counts", "1", "1", "2"]) == 0
    text = capsys.readouterr().out
    assert "Wald" not in text and "0.5626" not in text
    assert "standard error 0.4146 (one verdict per query: nothing to cluster; " in text
    assert "DO NOT LAUNCH, not conclusive" in text


def test_settings_change_the_decision(capsys):
    out = run_json(capsys, ["--counts", "60", "90", "50", "--threshold", "-0.1"])
    assert out["decision"] == "launch"
    out = run_json(capsys, ["--counts", "20", "0", "0", "--min-queries", "10"])
    assert out["decision"] == "launch"
    out = run_json(capsys, ["--counts", "70", "100", "30", "--confidence", "0.9999999"])
    assert out["decision"] == "more_data"


def test_a_verdicts_csv(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_text(
        "query,verdict,rater,candidate_side,chosen_side,strength\n"
        "q1,G,amy,left,left,2\n"
        "q1,G,bob,right,right,1\n"
        "q2,S,amy,left,,\n"
        "q2,B,bob,left,right,much\n"
        "q3,B,amy,right,left,1\n"
        "q4,B,bob,right,left,3\n"
    )
    out = run_json(capsys, [str(path)])
    assert (out["good"], out["same"], out["bad"]) == (2, 1, 3)
    assert out["gsb"] == pytest.approx(-1 / 6)
    assert out["position_bias"]["left"] == 3 and out["position_bias"]["right"] == 2
    assert out["strength_distribution"] == {
        "-3": 2,
        "-2": 0,
        "-1": 1,
        "0": 1,
        "1": 1,
        "2": 1,
        "3": 0,
    }
    assert out["alpha"] is not None and out["raw_agreement"] == 0.0
    assert out["n_queries"] == 4


def test_seed_002_verdicts_say_do_not_launch(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_text("query,verdict\nq1,G\nq2,S\nq3,B\nq4,B\n")
    out = run_json(capsys, [str(path)])
    assert out["gsb"] == -0.25 and out["decision"] == "do_not_launch"


def test_without_a_rater_column_it_says_the_interval_uses_z_and_allows_for_queries_only(
    tmp_path, capsys
):
    path = tmp_path / "v.csv"
    path.write_text("query,verdict\nq1,G\nq1,S\nq2,G\nq2,B\nq3,G\nq3,G\n")
    assert main([str(path)]) == 0
    text = capsys.readouterr().out
    assert "(clustered by query only, no rater column; interval with the normal z)" in text
    assert "Warning: no rater column: the interval allows for queries only" in text
    out = run_json(capsys, [str(path)])
    assert out["interval_df"] is None and out["n_raters"] is None


def test_the_summary_always_names_the_critical_value(tmp_path, capsys):
    # 10 raters judge each of 4 queries; five always say Good, five Bad (one Same): the rater
    # side carries the variance, so the interval uses t with min(4, 10) - 1 = 3 df.
    rows = [f"q{q},{'G' if k < 5 else 'B'},r{k}" for q in range(4) for k in range(10)]
    rows[0] = "q0,S,r0"
    ten, five = tmp_path / "ten.csv", tmp_path / "five.csv"
    ten.write_text("query,verdict,rater\n" + "\n".join(rows) + "\n")
    # The same with only r0..r4 (four say Good throughout): too few raters, so z.
    five.write_text("query,verdict,rater\n" + "\n".join(r for r in rows if r[-1] < "5") + "\n")
    assert main([str(ten)]) == 0 and main([str(five)]) == 0
    text = capsys.readouterr().out
    assert "clustered by query and by rater, 10 raters; interval with t, 3 df)" in text
    assert "5 raters are too few to cluster by; interval with the normal z)" in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("query,verdict\nq1,X\n", "v.csv:2: verdict 'X' is not G, S or B"),
        ("query,verdict\nq1,G\nq2,G,extra\n", "v.csv:3: expected 2 fields"),
        ("q,verdict\nq1,G\n", "v.csv:1: the header needs the columns query and verdict"),
        ("query,verdict,colour\nq1,G,red\n", "unknown column 'colour'"),
        ("query,verdict\n", "no verdicts"),
        ("query,verdict,candidate_side\nq1,G,up\n", "v.csv:2: candidate_side 'up'"),
        ("query,verdict,strength\nq1,S,2\n", "Same verdict cannot have a strength"),
    ],
)
def test_bad_csv_gives_a_clear_message_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "v.csv"
    path.write_text(content)
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--counts", "1", "2"],
        ["--counts", "a", "b", "c"],
        ["--counts", "-1", "2", "3"],
        ["--counts", "0", "0", "0"],
        ["--counts", "1", "1", "1", "--confidence", "1.5"],
        ["--counts", "1", "1", "1", "--format", "xml"],
        ["missing.csv"],
        ["--counts", "1", "1", "1", "v.csv"],
    ],
)
def test_bad_options_exit_2(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err


def test_a_broken_shuffle_exits_1_with_the_report(tmp_path, capsys):
    path = tmp_path / "v.csv"
    path.write_text("query,verdict,candidate_side\n" + "".join(f"q{i},S,left\n" for i in range(40)))
    assert main([str(path)]) == 1
    captured = capsys.readouterr()
    assert "Decision:" in captured.out
    assert "not shuffled" in captured.err


@pytest.mark.skipif(
    not (ROOT / "metrics" / "__main__.py").exists(), reason="python -m metrics not wired yet"
)
def test_through_python_dash_m(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "metrics", "gsb", "--counts", "60", "90", "50", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["more_queries"] == 1525 and out["decision"] == "more_data"
    bad = subprocess.run(
        [sys.executable, "-m", "metrics", "gsb", "--counts", "x", "1", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


# The address-space cap keeps a regression from eating the shared machine: expanding one array
# entry per verdict needed 9.5 GB for 100M verdicts; now it fails fast with a MemoryError.
_CAP = 2 << 30


def _peak_rss_kb(counts: tuple[str, str, str]) -> tuple[int, str]:
    """The child's own peak resident memory (wait4's rusage, not the sum over children)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_CAP, _CAP))

    argv = [sys.executable, "-m", "metrics", "gsb", "--counts", *counts, "--format", "json"]
    child = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=cap
    )
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0, err.decode()[-500:]
    return usage.ru_maxrss, out.decode()  # kB on Linux


@pytest.mark.skipif(not hasattr(os, "wait4"), reason="needs os.wait4 (POSIX)")
def test_the_cli_takes_the_same_memory_for_100_million_verdicts_as_for_100():
    small_kb, _ = _peak_rss_kb(("40", "30", "30"))
    big_kb, out = _peak_rss_kb(("40000000", "30000000", "30000000"))
    assert json.loads(out)["n_verdicts"] == 100_000_000
    # Same memory up to allocator noise (about 1 MB between runs); one int64 per verdict
    # alone would be 800 MB more.
    assert big_kb - small_kb < 20_000, (small_kb, big_kb)

"""``python -m metrics compare`` on STATISTICS.md's runs case, built from TREC files."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli.compare import main

ROOT = Path(__file__).resolve().parents[4]
# STATISTICS.md §6 case: per-query values of A and B.
A = [0.50, 0.60, 0.70, 0.40, 0.80, 0.30]
B = [0.60, 0.65, 0.68, 0.55, 0.80, 0.42]


@pytest.fixture
def files(tmp_path):
    """Qrels with 100 relevant documents per query; a run whose P@100 is the wanted value."""
    qrels = [f"q{i} 0 rel{j} 1" for i in range(6) for j in range(100)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    for name, values in (("a", A), ("b", B)):
        lines = []
        for i, v in enumerate(values):
            k = round(v * 100)
            docs = [f"rel{j}" for j in range(k)] + [f"non{j}" for j in range(100 - k)]
            lines += [f"q{i} Q0 {d} {r + 1} {1000 - r} {name}" for r, d in enumerate(docs)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return tmp_path


def args(files, *extra):
    return [str(files / "qrels"), str(files / "a"), str(files / "b"), *extra]


def test_the_runs_case_through_the_command_line(files, capsys):
    assert main(args(files, "-m", "P.100", "--seed", "3", "--format", "json")) == 0
    out = json.loads(capsys.readouterr().out)
    (m,) = out["measures"]
    assert m["measure"] == "P_100" and out["queries"] == 6
    assert round(m["diff"], 4) == 0.0667
    assert round(m["t"], 4) == 2.4008
    assert round(m["p_t"], 4) == 0.0616
    assert (round(m["ci_t_low"], 4), round(m["ci_t_high"], 4)) == (-0.0047, 0.1380)
    assert m["p_randomization"] == pytest.approx(0.125) and m["randomization_exact"]
    assert m["ci_boot_low"] < m["diff"] < m["ci_boot_high"]
    assert [g["query"] for g in m["gained"]][:2] == ["q3", "q5"]
    assert [g["query"] for g in m["lost"]] == ["q2"]
    assert out["seed"] == 3 and out["adjustment"] == "none"


def test_the_text_report(files, capsys):
    assert main(args(files, "-m", "P.100", "--seed", "3", "--top", "1")) == 0
    text = capsys.readouterr().out
    assert "difference +0.0667" in text
    assert "t = 2.4008, p = 0.0616; 95% interval [-0.0047, +0.1380]" in text
    assert "randomization test (exact): p = 0.1250" in text
    assert "q3  +0.1500  (0.4000 -> 0.5500)" in text
    assert "q2  -0.0200  (0.7000 -> 0.6800)" in text


def test_several_measures_get_holm_adjusted_p_values(files, capsys):
    assert (
        main(args(files, "-m", "P.100", "-m", "recall.100", "--seed", "1", "--format", "json")) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["adjustment"] == "holm"
    p100, recall = out["measures"]
    # recall@100 equals P@100 here (100 relevant each): two equal p-values, Holm: min(1, 2p).
    assert p100["p_t_adjusted"] == pytest.approx(min(1.0, 2 * p100["p_t"]))
    assert recall["p_t_adjusted"] == pytest.approx(min(1.0, 2 * recall["p_t"]))


def test_the_seed_makes_the_bootstrap_reproducible(files, capsys):
    main(args(files, "-m", "P.100", "--seed", "8", "--format", "json"))
    one = json.loads(capsys.readouterr().out)["measures"][0]
    main(args(files, "-m", "P.100", "--seed", "8", "--format", "json"))
    two = json.loads(capsys.readouterr().out)["measures"][0]
    assert (one["ci_boot_low"], one["ci_boot_high"]) == (two["ci_boot_low"], two["ci_boot_high"])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-m", "bogus"], "unknown measure"),
        (["--top", "-1"], "--top"),
        (["--format", "xml"], "invalid choice"),
        (["--seed", "x"], "invalid int value"),
    ],
)
def test_bad_options_exit_2(files, capsys, extra, message):
    assert main(args(files, *extra)) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_missing_file_or_bad_line_exits_2(files, capsys):
    assert main([str(files / "qrels"), str(files / "a"), str(files / "nope")]) == 2
    assert "nope: no such file" in capsys.readouterr().err
    (files / "bad").write_text("q1 Q0 d1 1 notanumber x\n")
    assert main([str(files / "qrels"), str(files / "a"), str(files / "bad")]) == 2
    assert "bad:1:" in capsys.readouterr().err


@pytest.mark.skipif(
    not (ROOT / "metrics" / "__main__.py").exists(), reason="python -m metrics not wired yet"
)
def test_through_python_dash_m(files):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "compare",
            *args(files, "-m", "P.100", "--format", "json"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (m,) = json.loads(proc.stdout)["measures"]
    assert round(m["p_t"], 4) == 0.0616


def _drop_queries(path: Path, queries: set[str]) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(x for x in lines if x.split()[0] not in queries) + "\n")


def test_a_query_a_run_lacks_counts_as_0_and_is_announced_first(files, capsys):
    # Run B returns nothing for q1, q3 and q5: dropping them would compare three queries only.
    from scipy.stats import ttest_rel

    _drop_queries(files / "b", {"q1", "q3", "q5"})
    assert main(args(files, "-m", "P.100", "--seed", "3")) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    assert first.startswith(f"note: run B ({files / 'b'}) has no results for 3 qrels queries")
    assert "counted as 0" in first and first.endswith("q1, q3, q5")
    b_zero = [0.60, 0.0, 0.68, 0.0, 0.80, 0.0]
    ref = ttest_rel(b_zero, A)
    assert "on 6 queries" in text
    assert f"difference {sum(b_zero) / 6 - sum(A) / 6:+.4f}" in text
    assert f"t = {ref.statistic:.4f}, p = {ref.pvalue:.4f}" in text
    assert main(args(files, "-m", "P.100", "--seed", "3", "--format", "json")) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["missing"] == {"run_a": [], "run_b": ["q1", "q3", "q5"]}
    assert out["queries"] == 6 and out["notices"][0] == first.removeprefix("note: ")


def test_drop_missing_compares_only_the_queries_both_runs_answer(files, capsys):
    from scipy.stats import ttest_rel

    _drop_queries(files / "b", {"q1", "q3", "q5"})
    assert main(args(files, "-m", "P.100", "--seed", "3", "--drop-missing")) == 0
    text = capsys.readouterr().out
    assert "left out of the comparison (--drop-missing)" in text.splitlines()[0]
    ref = ttest_rel([B[0], B[2], B[4]], [A[0], A[2], A[4]])
    assert "on 3 queries" in text and f"p = {ref.pvalue:.4f}" in text

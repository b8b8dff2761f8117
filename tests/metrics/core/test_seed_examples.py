"""Every worked example of DESIGN.md section 4, through the Python API and the command line.

Expected values are the table's (from the seeds, recomputed exactly), never our own output.
"""

from __future__ import annotations

import math

import pytest

from metrics.core import (
    Qrels,
    Run,
    average_precision,
    cg,
    dcg,
    evaluate,
    idcg,
    ndcg,
    read_scored,
)
from tests.metrics.trec_data import parse_trec_output, run_cli, write_qrels, write_run


def ranked(grades, extra_judged=()):
    """A run of documents d1..dn in this order, graded as given, plus unretrieved judged docs."""
    run = {"q": {f"d{i}": float(len(grades) - i) for i in range(len(grades))}}
    qrels = {"q": {f"d{i}": g for i, g in enumerate(grades)}}
    for j, g in enumerate(extra_judged):
        qrels["q"][f"x{j}"] = g
    return qrels, run


SEED_000 = [3, 2, 3, 0, 1, 2, 3, 0]
SEED_002 = [3, 2, 3, 0, 1, 2]
SEED_001 = [3, 2, 1, 3, 2]

# (description, grades, extra judged, options, k, {measure: expected})
TABLE = [
    ("000: 8 retrieved, k=6", SEED_000, (), {}, 6,
     {"cg": 11, "dcg": 6.8611, "idcg": 8.3841, "ndcg": 0.8184}),
    ("000: 8 retrieved, k=6, retrieved ideal", SEED_000, (), {"ideal": "retrieved"}, 6,
     {"idcg": 8.3841, "ndcg": 0.8184}),
    ("000: top 6, the 3 and 0 judged unretrieved", SEED_002, (3, 0), {}, 6, {"ndcg": 0.8184}),
    ("000: top 6, retrieved ideal", SEED_002, (3, 0), {"ideal": "retrieved"}, 6, {"ndcg": 0.9608}),
    ("002: no other judged docs", SEED_002, (), {}, 6,
     {"dcg": 6.8611, "idcg": 7.1410, "ndcg": 0.9608}),
    ("002: retrieved ideal", SEED_002, (), {"ideal": "retrieved"}, 6, {"ndcg": 0.9608}),
    ("001: Järvelin-Kekäläinen", SEED_001, (), {"discount": "jarvelin"}, 5,
     {"cg": 11, "dcg": 7.9923, "idcg": 8.6925, "ndcg": 0.9194}),
    ("001: JK, retrieved ideal", SEED_001, (), {"discount": "jarvelin", "ideal": "retrieved"}, 5,
     {"ndcg": 0.9194}),
    ("001: linear gain, log2 discount", SEED_001, (), {}, 5, {"dcg": 6.8276}),
    ("003: JK", SEED_002, (), {"discount": "jarvelin"}, 6,
     {"dcg": 8.0972, "idcg": 8.6925, "ndcg": 0.9315}),
]  # fmt: skip

FUNCS = {"cg": cg, "dcg": dcg, "idcg": idcg, "ndcg": ndcg}


@pytest.mark.parametrize(
    ("label", "grades", "extra", "opts", "k", "expected"), TABLE, ids=[t[0] for t in TABLE]
)
def test_it_reproduces_the_seed_table(label, grades, extra, opts, k, expected):
    qrels, run = ranked(grades, extra)
    for measure, value in expected.items():
        func = FUNCS[measure]
        kwargs = {k2: v for k2, v in opts.items() if measure in ("ndcg", "idcg") or k2 != "ideal"}
        got = func(qrels, run, k, **kwargs)
        assert got == pytest.approx(value, abs=5e-5), (label, measure)


def test_the_table_numbers_are_the_exact_formulas():
    # Independent hand computation of the first row, to more digits than the table shows.
    d = [3, 2 / math.log2(3), 3 / 2, 0, 1 / math.log2(6), 2 / math.log2(7)]
    i = [3, 3 / math.log2(3), 3 / 2, 2 / math.log2(5), 2 / math.log2(6), 1 / math.log2(7)]
    qrels, run = ranked(SEED_000)
    assert dcg(qrels, run, 6) == pytest.approx(sum(d), rel=1e-12)
    assert idcg(qrels, run, 6) == pytest.approx(sum(i), rel=1e-12)


def test_it_reproduces_seed_001_binary_recommendation():
    run = {"u": {doc: float(5 - i) for i, doc in enumerate("ABCDE")}}
    qrels = {"u": dict.fromkeys("ADGFK", 1)}
    assert ndcg(qrels, run, 5, discount="jarvelin", ideal="retrieved") == pytest.approx(0.75)
    assert ndcg(qrels, run, 5, discount="jarvelin") == pytest.approx(0.4212, abs=5e-5)


def seed_003_collection():
    # Topic 1: 4 relevant, retrieved at ranks 1, 2, 4, 7. Topic 2: 5 relevant, 3 retrieved at
    # ranks 1, 3, 5 (2 never retrieved).
    run, qrels = {}, {}
    for topic, ranks, n_rel in (("t1", (1, 2, 4, 7), 4), ("t2", (1, 3, 5), 5)):
        run[topic] = {f"{topic}d{r}": float(100 - r) for r in range(1, 11)}
        qrels[topic] = {f"{topic}d{r}": (1 if r in ranks else 0) for r in range(1, 11)}
        for j in range(n_rel - len(ranks)):
            qrels[topic][f"{topic}missing{j}"] = 1
    return qrels, run


def test_it_reproduces_seed_003_map():
    qrels, run = seed_003_collection()
    per_query = average_precision(qrels, run, per_query=True)
    assert per_query["t1"] == pytest.approx((1 + 1 + 3 / 4 + 4 / 7) / 4)
    assert per_query["t1"] == pytest.approx(0.8304, abs=5e-5)
    assert per_query["t2"] == pytest.approx(0.4533, abs=5e-5)
    assert average_precision(qrels, run) == pytest.approx(0.6418, abs=5e-5)


def seed_000_script():
    # The script's ideal grades of documents 1..10, and its recall list of document numbers;
    # documents 11, 12, 13 are not judged.
    grades = [5, 5, 4, 4, 3, 3, 2, 2, 1, 1]
    recall_list = [8, 11, 2, 12, 3, 1, 5, 4, 13, 7]
    qrels = {"q": {f"doc{i + 1}": g for i, g in enumerate(grades)}}
    run = {"q": {f"doc{n}": float(10 - i) for i, n in enumerate(recall_list)}}
    return qrels, run


def test_it_reproduces_seed_000_script():
    qrels, run = seed_000_script()
    retrieved = [qrels["q"].get(d, 0) for d in run["q"]]
    assert retrieved == [2, 0, 5, 0, 4, 5, 3, 4, 0, 2]
    assert ndcg(qrels, run, 10, gain="exponential") == pytest.approx(0.5989, abs=5e-5)


def test_binary_grades_give_the_same_ndcg_with_both_gains():
    # Seed 000: "when the relevance is binary, the two formulas agree".
    qrels, run = ranked([1, 0, 1, 1, 0, 0, 1])
    assert ndcg(qrels, run, 5, gain="exponential") == ndcg(qrels, run, 5, gain="linear")


# ---------------------------------------------------------------- command line


def table_files(tmp_path):
    """The table's rankings as queries of one qrels and one run file."""
    cases = {
        "s000": (SEED_000, ()),
        "s000top": (SEED_002, (3, 0)),
        "s002": (SEED_002, ()),
        "s001": (SEED_001, ()),
    }
    qrels, run = {}, {}
    for qid, (grades, extra) in cases.items():
        q1, r1 = ranked(grades, extra)
        qrels[qid], run[qid] = q1["q"], r1["q"]
    return write_qrels(tmp_path / "qrels", qrels), write_run(tmp_path / "run", run)


def test_the_cli_reproduces_the_table(tmp_path):
    q, r = table_files(tmp_path)
    measures = ["-m", "ndcg_cut.5,6", "-m", "dcg_cut.5,6", "-q"]
    out = parse_trec_output(run_cli(str(q), str(r), *measures).stdout)
    assert (out[("ndcg_cut_6", "s000")], out[("dcg_cut_6", "s000")]) == ("0.8184", "6.8611")
    assert (out[("ndcg_cut_6", "s000top")], out[("ndcg_cut_6", "s002")]) == ("0.8184", "0.9608")
    assert out[("dcg_cut_5", "s001")] == "6.8276"
    out = parse_trec_output(run_cli(str(q), str(r), *measures, "--ideal", "retrieved").stdout)
    assert (out[("ndcg_cut_6", "s000")], out[("ndcg_cut_6", "s000top")]) == ("0.8184", "0.9608")
    out = parse_trec_output(run_cli(str(q), str(r), *measures, "--discount", "jarvelin").stdout)
    assert (out[("ndcg_cut_5", "s001")], out[("dcg_cut_5", "s001")]) == ("0.9194", "7.9923")
    assert (out[("ndcg_cut_6", "s002")], out[("dcg_cut_6", "s002")]) == ("0.9315", "8.0972")


def test_the_cli_reproduces_seed_000_script_and_seed_003_map(tmp_path):
    qrels, run = seed_000_script()
    qrels3, run3 = seed_003_collection()
    q = write_qrels(tmp_path / "q", {**qrels, **qrels3})
    r = write_run(tmp_path / "r", {**run, **run3})
    proc = run_cli(str(q), str(r), "-m", "ndcg_cut.10", "-m", "map", "--gain", "exponential", "-q")
    out = parse_trec_output(proc.stdout)
    assert out[("ndcg_cut_10", "q")] == "0.5989"
    assert (out[("map", "t1")], out[("map", "t2")]) == ("0.8304", "0.4533")


def test_the_cli_reads_stdin(tmp_path):
    qrels, run = ranked(SEED_002)
    q = write_qrels(tmp_path / "qrels", qrels)
    r = write_run(tmp_path / "run", run)
    proc = run_cli(str(q), "-", "-m", "ndcg_cut.6", stdin=r.read_text())
    assert proc.returncode == 0, proc.stderr
    assert parse_trec_output(proc.stdout)[("ndcg_cut_6", "all")] == "0.9608"
    proc = run_cli("-", str(r), "-m", "ndcg_cut.6", stdin=q.read_text())
    assert parse_trec_output(proc.stdout)[("ndcg_cut_6", "all")] == "0.9608"


# ---------------------------------------------------------------- seed 004's format


def seed_004_script(lines: list[tuple[int, str, float]], top_k: int) -> float:
    """Seed 004's script, ported to Python 3 (its functions verbatim), with the lines of each
    query gathered first (the design lets them be non-adjacent)."""

    def dcg_(label_list):
        dcgsum = 0
        for i in range(len(label_list)):
            dcgsum += (2 ** label_list[i] - 1) / math.log(i + 2, 2)
        return dcgsum

    def ndcg_(label_list):
        d = dcg_(label_list[0:top_k])
        ideal_list = sorted(label_list, reverse=True)
        ideal_dcg = dcg_(ideal_list[0:top_k])
        if ideal_dcg == 0:
            return 0
        return d / ideal_dcg

    def query_ndcg(label_qid_score):
        tmp = sorted(label_qid_score, key=lambda x: -x[2])
        return ndcg_([label for label, _q, _s in tmp])

    groups: dict[str, list] = {}
    for label, qid, score in lines:
        groups.setdefault(qid, []).append([label, qid, score])
    return sum(query_ndcg(g) for g in groups.values()) / len(groups)


SCORED_LINES = [
    (2, "A", 0.9), (0, "A", 0.5), (1, "B", 0.3), (1, "A", 0.5), (3, "A", 0.1),
    (0, "B", 0.3), (2, "B", 0.3), (0, "C", 1.0), (0, "C", 0.2), (3, "B", 0.05),
]  # fmt: skip


def test_scored_format_matches_seed_004_script(tmp_path):
    text = "".join(f"{label} {qid} {score}\n" for label, qid, score in SCORED_LINES)
    path = tmp_path / "scored.txt"
    path.write_text(text)
    proc = run_cli(
        "--scored",
        "-",
        "-m",
        "ndcg_cut.1-3,5",
        "--gain",
        "exponential",
        "--precision",
        "12",
        stdin=text,
    )
    assert proc.returncode == 0, proc.stderr
    out = parse_trec_output(proc.stdout)
    for k in (1, 2, 3, 5):
        expected = seed_004_script(SCORED_LINES, k)
        qrels, run = read_scored(path)
        got = evaluate(qrels, run, f"ndcg_cut.{k}", gain="exponential")
        assert got.mean[f"ndcg_cut_{k}"] == pytest.approx(expected, rel=1e-12)
        assert float(out[(f"ndcg_cut_{k}", "all")]) == pytest.approx(expected, abs=1e-11)


def test_scored_ties_keep_file_order():
    qrels, run = read_scored_text("1 q 0.5\n0 q 0.5\n")
    # The grade-1 line comes first in the file, so it ranks first: DCG@1 = 1.
    assert evaluate(qrels, run, "dcg_cut.1").mean["dcg_cut_1"] == 1.0
    qrels, run = read_scored_text("0 q 0.5\n1 q 0.5\n")
    assert evaluate(qrels, run, "dcg_cut.1").mean["dcg_cut_1"] == 0.0


def read_scored_text(text: str) -> tuple[Qrels, Run]:
    import io

    return read_scored(io.BytesIO(text.encode()))

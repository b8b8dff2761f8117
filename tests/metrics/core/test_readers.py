"""TREC readers: accepted variants, and errors that name the file, the line and the problem."""

from __future__ import annotations

import io

import numpy as np
import pytest

from metrics.core import Qrels, Run, read_qrels, read_run, read_scored


def test_it_reads_qrels_with_whole_real_and_negative_grades(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 3\nq1 0 d2 0.5\nq1 0 d3 -1\nq2 0 d1 1e0\n")
    qrels = read_qrels(path)
    assert qrels.to_dict() == {"q1": {"d1": 3.0, "d2": 0.5, "d3": -1.0}, "q2": {"d1": 1.0}}
    assert qrels.qids == ["q1", "q2"]


def test_it_reads_hand_aligned_files_with_tabs_blank_lines_and_crlf():
    text = "q1\t0  d1   2 \r\n\n  q1 0 d2 1\r\n\t\nq10 0 d3 0\n"
    qrels = read_qrels(io.StringIO(text))
    assert qrels.to_dict() == {"q1": {"d1": 2.0, "d2": 1.0}, "q10": {"d3": 0.0}}


def test_it_reads_runs_and_ignores_ranks(tmp_path):
    path = tmp_path / "run"
    path.write_text("q1 Q0 a 9 1.5 tagA\nq1 Q0 b x -2 tagA\nq2 Q0 a 1 1e-3 tagA\n")
    run = read_run(path)
    assert run.to_dict() == {"q1": {"a": 1.5, "b": -2.0}, "q2": {"a": 0.001}}
    assert run.name == "tagA"


def test_scores_keep_64_bits():
    run = read_run(io.StringIO("q Q0 a 1 0.10000000000000001 t\nq Q0 b 2 1.0000000000000002 t\n"))
    assert run.scores.tolist() == [0.1, 1.0000000000000002]


def test_it_reads_binary_files_and_empty_input():
    assert len(read_qrels(io.BytesIO(b"q 0 d 1\n"))) == 1
    assert len(read_run(io.BytesIO(b""))) == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "q1 0 d1 1\nq1 0 d2\n",
            "f:2: too few columns: expected 4 (qid iter docno grade), found 3",
        ),
        (
            "q1 0 d1 1\n\nq1 0 d2 1 7\n",
            "f:3: too many columns: expected 4 (qid iter docno grade), found 5",
        ),
        ("q1 0 d1 1\nq1 0 d2 high\n", "f:2: grade 'high' is not a number"),
        ("q1 0 d1 nan\n", "f:1: grade 'nan' is not a number"),
        (
            "q1 0 d1 1\nq2 0 d1 1\n\nq1 0 d1 2\n",
            "f:4: document 'd1' appears twice in query 'q1' of the qrels (first at line 1)",
        ),
        ("q1 0 d\xff 1\n", "f:1: not valid UTF-8"),
    ],
)
def test_qrels_errors_name_the_line(text, message):
    data = io.BytesIO(text.encode("latin-1") if "\xff" in text else text.encode())
    data.name = "f"
    with pytest.raises(ValueError) as info:
        read_qrels(data)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "q Q0 a 1 1 t\nq Q0 b 2 t\n",
            "f:2: too few columns: expected 6 (qid Q0 docno rank score tag), found 5",
        ),
        ("q Q0 a 1 1 t\nq Q0 b 2 x t\n", "f:2: score 'x' is not a number"),
        (
            "q Q0 a 1 1 t\nr Q0 a 1 1 t\nq Q0 b 2 1 t\nq Q0 a 3 0.5 t\n",
            "f:4: document 'a' appears twice in query 'q' of the run (first at line 1)",
        ),
    ],
)
def test_run_errors_name_the_line_and_the_document(text, message):
    data = io.BytesIO(text.encode())
    data.name = "f"
    with pytest.raises(ValueError) as info:
        read_run(data)
    assert str(info.value) == message


def test_a_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="nope: no such file"):
        read_qrels(tmp_path / "nope")
    with pytest.raises(ValueError, match="is a directory"):
        read_run(tmp_path)


def test_scored_lines_become_one_document_each():
    qrels, run = read_scored(io.StringIO("2 A 0.9\n0 B 0.1\n1 A 0.9\n"))
    q = qrels.to_dict()
    assert sorted(q) == ["A", "B"]
    assert sorted(q["A"].values()) == [1.0, 2.0]
    # Ids sort descending in file order, so equal scores keep the file's order.
    ids = run.frame["docid"].to_list()
    assert ids == sorted(ids, reverse=True)


def test_scored_errors_name_the_line():
    with pytest.raises(ValueError, match=r"^<file>:2: label 'x' is not a number$"):
        read_scored(io.StringIO("1 q 0.5\nx q 0.2\n"))


def test_constructors_validate():
    with pytest.raises(ValueError, match="same length"):
        Qrels.from_arrays(["q"], ["a", "b"], [1, 2])
    with pytest.raises(ValueError, match="'a' appears twice in query 'q'"):
        Run.from_arrays(["q", "q"], ["a", "a"], [1.0, 2.0])
    with pytest.raises(ValueError, match="must be a number"):
        Run.from_arrays(["q"], ["a"], [float("nan")])
    with pytest.raises(ValueError, match="must be a number"):
        Qrels.from_arrays(["q"], ["a"], ["good"])
    with pytest.raises(ValueError, match="expected a mapping"):
        Qrels.from_dict({"q": [1, 2]})


def test_numeric_ids_become_their_decimal_text():
    run = Run.from_arrays(np.array([1, 1, 2]), np.array([10, 9, 10]), [0.5, 0.5, 1.0])
    assert run.to_dict() == {"1": {"10": 0.5, "9": 0.5}, "2": {"10": 1.0}}


def test_run_lines_with_trailing_fields_are_read_as_trec_eval_reads_them():
    # trec_eval reads the first six fields (its own test file results.trunc has words after the
    # tag); the rest is ignored, with one warning for the file.
    plain = "q Q0 a 1 2.5 tag\nq Q0 b 2 1.5 tag\nr Q0 c 1 1 tag\n"
    trailing = "q Q0 a 1 2.5 tag and some words\nq Q0 b 2 1.5 tag\n\nr  Q0\tc 1 1 tag x\n"
    data = io.BytesIO(trailing.encode())
    data.name = "f"
    with pytest.warns(UserWarning) as caught:
        run = read_run(data)
    assert [str(w.message) for w in caught] == [
        "f:1: 2 lines have more than 6 fields; the fields after the sixth are ignored, "
        "as trec_eval does"
    ]
    expected = read_run(io.BytesIO(plain.encode()))
    assert run.to_dict() == expected.to_dict() == {"q": {"a": 2.5, "b": 1.5}, "r": {"c": 1.0}}
    assert run.name == "tag"


def test_trec_eval_style_lines_with_trailing_words_tabs_and_crlf_are_read_as_trec_eval_does():
    # As trec_eval's results.trunc (its -c test run): TREC qids and docnos, any blanks between
    # fields, CRLF endings, and words after the tag. trec_eval's parse_results_line
    # (get_trec_results.c) takes qid, docno, sim and the tag, then skips to the end of the line;
    # expected values below are read off the lines by hand.
    text = (
        "301\tQ0\tFBIS3-10082\t1\t-5.123456\tSTANDARD\tjudged by hand\r\n"
        "301  Q0  FR940202-2-00150  2  -7.5  STANDARD  x\r\n"
        "\r\n"
        "303 Q0 LA052190-0135 1 12 STANDARD\r\n"
        "303 Q0 FT922-1008 2 1e-3 STANDARD 0 1 2 3\r\n"
    )
    data = io.BytesIO(text.encode())
    data.name = "results.trunc"
    with pytest.warns(UserWarning, match=r"results\.trunc:1: 3 lines have more than 6 fields"):
        run = read_run(data)
    assert run.to_dict() == {
        "301": {"FBIS3-10082": -5.123456, "FR940202-2-00150": -7.5},
        "303": {"LA052190-0135": 12.0, "FT922-1008": 0.001},
    }
    assert run.name == "STANDARD"


def test_qrels_lines_with_trailing_fields_are_still_refused():
    data = io.BytesIO(b"q 0 a 1 extra\n")
    data.name = "f"
    with pytest.raises(ValueError, match="f:1: too many columns"):
        read_qrels(data)

"""A competitor's ranking as labels: rank bands (hand-computed), matching by id and by URL,
the order of a file with ranks only or with scores, and bad files that change nothing."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from annotate.models import Document, LabelSource, SourceLabel
from annotate.services.campaigns import campaign_create
from annotate.services.imports import ImportFailed
from annotate.services.labels.bands import band_grades, default_bands, parse_bands
from annotate.services.labels.competitor import import_competitor
from tests.annotate.import_support import add_queries, counts, make_campaign, write

pytestmark = pytest.mark.django_db


def labels(name: str) -> dict[tuple[str, str], float]:
    rows = SourceLabel.objects.filter(source__name=name).values_list(
        "query__external_id", "document__external_id", "grade"
    )
    return {(q, d): g for q, d, g in rows}


@pytest.fixture
def campaign():
    campaign = make_campaign("competitor")
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i:02}", url=f"https://www.shop.example/p/{i}")
        for i in range(1, 26)
    )
    return campaign


def test_default_bands_grade_ranks_1_3_top_4_10_middle_11_20_lowest(campaign, tmp_path):
    lines = ["qid,docno,rank"] + [f"q1,d{r:02},{r}" for r in range(1, 23)]
    summary = import_competitor(
        campaign=campaign, file=write(tmp_path, "c.csv", "\n".join(lines)), name="rival"
    )
    got = labels("competitor:rival")
    expected = {("q1", f"d{r:02}"): 3.0 for r in range(1, 4)}
    expected |= {("q1", f"d{r:02}"): 2.0 for r in range(4, 11)}
    expected |= {("q1", f"d{r:02}"): 1.0 for r in range(11, 21)}
    assert got == expected  # ranks 21 and 22: no label
    assert summary.created == 20
    source = LabelSource.objects.get(name="competitor:rival")
    assert source.kind == "competitor"
    assert source.params["bands"] == [[1, 3, 3.0], [4, 10, 2.0], [11, 20, 1.0]]
    assert source.params["beyond_bands_lines"] == 2
    assert source.params["format"] == "csv"


def test_manager_bands_and_positions_close_gaps_in_the_rank_column(campaign, tmp_path):
    # Ranks 1, 2, 5, 7, 9 without a header: places 1..5 in rank order.
    text = "q2,d05,5\nq2,d01,1\nq2,d09,9\nq2,d02,2\nq2,d07,7\n"
    bands = parse_bands("1-2:Good, 3-4:1", campaign=campaign)
    import_competitor(campaign=campaign, file=write(tmp_path, "c.csv", text), name="r", bands=bands)
    assert labels("competitor:r") == {
        ("q2", "d01"): 3.0,
        ("q2", "d02"): 3.0,
        ("q2", "d05"): 1.0,
        ("q2", "d07"): 1.0,
    }


def test_a_trec_file_is_ordered_by_score_not_by_its_rank_column(campaign, tmp_path):
    # The rank column says d01 first; the scores say d03, then d02 and d04 tied (document id
    # descending: d04 before d02), then d01.
    text = (
        "q1 Q0 d01 1 0.1 rival\n"
        "q1 Q0 d02 2 0.5 rival\n"
        "q1 Q0 d03 3 0.9 rival\n"
        "q1 Q0 d04 4 0.5 rival\n"
    )
    bands = parse_bands("1:3,2:2,3-4:1", campaign=campaign)
    import_competitor(
        campaign=campaign, file=write(tmp_path, "rival.run", text), name="r", bands=bands
    )
    assert labels("competitor:r") == {
        ("q1", "d03"): 3.0,
        ("q1", "d04"): 2.0,
        ("q1", "d02"): 1.0,
        ("q1", "d01"): 1.0,
    }
    assert LabelSource.objects.get(name="competitor:r").params["format"] == "trec"


def test_urls_match_through_normalisation_and_unmatched_lines_keep_their_place(campaign, tmp_path):
    text = (
        "qid,url,rank\n"
        "q1,https://elsewhere.example/x,1\n"  # not in the campaign: position 1, no label
        "q1,http://shop.example/p/2/,2\n"  # d02 at position 2
        "q1,HTTPS://WWW.SHOP.EXAMPLE:443/p/3#top,3\n"  # d03
        "q1,https://shop.example/p/%34,4\n"  # d04, position 4: middle band
        "q1,https://www.shop.example/p/3?,5\n"  # d03 again, another spelling: merged
        "q9,https://shop.example/p/5,1\n"  # a query the campaign lacks
    )
    summary = import_competitor(
        campaign=campaign, file=write(tmp_path, "c.csv", text), name="r", match="url"
    )
    assert labels("competitor:r") == {
        ("q1", "d02"): 3.0,
        ("q1", "d03"): 3.0,
        ("q1", "d04"): 2.0,
    }
    params = LabelSource.objects.get(name="competitor:r").params
    assert params["unmatched_lines"] == 1
    assert params["unknown_query_lines"] == 1
    assert params["merged"] == 1
    assert params["match"] == "url"
    assert any("elsewhere" not in w and "queries" in w for w in summary.warnings)


def test_auto_matching_reads_ids_and_urls_side_by_side(campaign, tmp_path):
    text = "q1,d07,1\nq1,https://shop.example/p/8,2\nq1,nope,3\n"
    import_competitor(campaign=campaign, file=write(tmp_path, "c.csv", text), name="r")
    assert labels("competitor:r") == {("q1", "d07"): 3.0, ("q1", "d08"): 3.0}
    assert LabelSource.objects.get(name="competitor:r").params["unmatched_lines"] == 1


def test_default_bands_follow_any_scale():
    four = campaign_create(
        name="four",
        scale=[("Perfect", 3, "p"), ("Excellent", 2, "e"), ("Good", 1, "o"), ("Bad", 0, "b")],
    )
    assert [(b.first, b.last, b.grade) for b in default_bands(four)] == [
        (1, 3, 3.0),
        (4, 10, 2.0),
        (11, 20, 0.0),
    ]
    two = campaign_create(name="two", scale=[("Relevant", 1, "r"), ("Not", 0, "n")])
    assert [b.grade for b in default_bands(two)] == [1.0, 1.0, 0.0]


def test_band_grades_are_nan_outside_every_band(campaign):
    bands = parse_bands("2-3:Good,5:Bad", campaign=campaign)
    got = band_grades([1, 2, 3, 4, 5, 6], bands)
    assert got.tolist()[1:3] == [3.0, 3.0] and got[4] == 1.0
    assert all(got[i] != got[i] for i in (0, 3, 5))  # NaN


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("1-3:Great", "not a label"),
        ("3-1:Good", "from 1 upwards"),
        ("0-2:Good", "from 1 upwards"),
        ("1-5:Good,4-6:Bad", "overlap"),
        ("top:Good", "FIRST-LAST:GRADE"),
        ("1-3:2.5", "not a label"),
    ],
)
def test_bad_bands_are_refused(campaign, text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_bands(text, campaign=campaign)


@pytest.mark.parametrize(
    ("name", "text", "where", "problem"),
    [
        ("c.csv", "qid,docno,rank\nq1,d01,1\nq1,d02,two\n", ":3:", "rank 'two' is not a whole"),
        ("c.csv", "q1,d01,1\nq1,d02,2,extra\n", ":2:", "expected 3 columns"),
        ("c.csv", "q1,d01,1\nq1,d01,2\n", ":2:", "listed twice"),
        ("c.run", "q1 Q0 d01 1 0.5 r\nq1 Q0 d02 2 r\n", ":2:", "expected 6 columns"),
        ("c.run", "q1 Q0 d01 1 0.5 r\nq1 Q0 d02 2 high r\n", ":2:", "score 'high'"),
        ("c.csv", "qid,url,rank\nq1,http://,1\n", ":2:", "is not a URL"),
        ("c.csv", "qid,document,place\nq1,d01,1\n", ":1:", "no rank column"),
    ],
)
def test_a_bad_line_changes_nothing(campaign, tmp_path, name, text, where, problem):
    import_competitor(campaign=campaign, file=write(tmp_path, "ok.csv", "q1,d01,1\n"), name="keep")
    before = counts()
    match = "url" if "url" in text else "auto"
    with pytest.raises(ImportFailed) as exc:
        import_competitor(
            campaign=campaign,
            file=write(tmp_path, name, text),
            name="keep",
            replace=True,
            match=match,
        )
    assert where in str(exc.value) and problem in str(exc.value)
    assert counts() == before
    assert labels("competitor:keep") == {("q1", "d01"): 3.0}


def test_a_name_taken_is_refused_unless_replaced(campaign, tmp_path):
    path = write(tmp_path, "c.csv", "q1,d01,1\n")
    import_competitor(campaign=campaign, file=path, name="r")
    before = counts()
    with pytest.raises(ImportFailed, match="already exists"):
        import_competitor(campaign=campaign, file=path, name="competitor:r")
    assert counts() == before
    import_competitor(
        campaign=campaign, file=write(tmp_path, "d.csv", "q1,d09,1\nq1,d02,4\n"), name="r",
        replace=True,
    )  # fmt: skip
    assert labels("competitor:r") == {("q1", "d09"): 3.0, ("q1", "d02"): 3.0}


def test_the_command_imports_and_reports_bad_bands(campaign, tmp_path, capsys):
    path = write(tmp_path, "c.csv", "q1,d01,1\nq1,d02,2\n")
    call_command(
        "import_competitor", str(path), campaign="competitor", name="r", bands="1:Good,2:Fair"
    )
    assert labels("competitor:r") == {("q1", "d01"): 3.0, ("q1", "d02"): 2.0}
    assert "2 labels created" in capsys.readouterr().out
    with pytest.raises(CommandError, match="--bands"):
        call_command("import_competitor", str(path), campaign="competitor", name="x", bands="1:?")
    with pytest.raises(CommandError, match=r"c\.csv:1: .*listed twice|Nothing was imported"):
        call_command(
            "import_competitor",
            str(write(tmp_path, "c.csv", "q1,d01,1\nq1,d01,1\n")),
            campaign="competitor",
            name="y",
        )


def test_a_trec_line_whose_url_has_a_comma_is_still_a_trec_run(campaign, tmp_path):
    Document.objects.filter(external_id="d01").update(url="https://shop.example/p?a=1,2")
    text = "q1 Q0 https://shop.example/p?a=1,2 1 0.9 rival\nq1 Q0 d02 2 0.5 rival\n"
    import_competitor(campaign=campaign, file=write(tmp_path, "rival.txt", text), name="r")
    assert labels("competitor:r") == {("q1", "d01"): 3.0, ("q1", "d02"): 3.0}

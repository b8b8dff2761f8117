"""Guidelines Markdown is rendered, and whatever could run or track in the page is removed."""

from __future__ import annotations

import pytest

from annotate.services.markdown import render_markdown


def test_it_renders_the_usual_markdown():
    html = render_markdown(
        "# Title\n\n- **bold** and *it*\n- `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<h1>Title</h1>" in html
    assert "<strong>bold</strong>" in html and "<em>it</em>" in html
    assert "<code>code</code>" in html
    assert "<table>" in html and "<td>1</td>" in html


def test_empty_guidelines_render_nothing():
    assert render_markdown("") == ""
    assert render_markdown("   \n") == ""


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("<script>alert('x')</script>", ["<script", "alert("]),
        ("<style>body{display:none}</style>", ["<style", "display:none"]),
        ('<img src="x.png" onerror="alert(1)">', ["onerror", "alert(1)"]),
        ("[click](javascript:alert(1))", ["javascript:"]),
        ('<a href="JaVaScRiPt:alert(1)">x</a>', ["javascript", "JaVaScRiPt"]),
        ('<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', ["data:"]),
        ('<iframe src="https://evil.example"></iframe>', ["<iframe", "evil.example"]),
        ('<div onclick="steal()">x</div>', ["onclick", "steal"]),
        ('<p style="position:fixed">x</p>', ["style="]),
        ("<form action=/logout><button>x</button></form>", ["<form", "<button"]),
        ("<!-- a comment -->", ["comment"]),
    ],
)
def test_it_removes_anything_that_could_run_or_reshape_the_page(source, forbidden):
    html = render_markdown(source)
    for text in forbidden:
        assert text not in html, html


def test_links_open_in_a_new_tab_without_opener():
    html = render_markdown("[the spec](https://example.org/spec)")
    assert 'href="https://example.org/spec"' in html
    assert 'target="_blank"' in html and 'rel="noopener noreferrer"' in html
    html = render_markdown("[x](https://example.org)", links_in_new_tab=False)
    assert "target" not in html


def test_html_in_code_is_shown_as_text():
    html = render_markdown("```\n<script>x()</script>\n```")
    assert "&lt;script&gt;" in html and "<script>" not in html


def test_hard_wrapped_lines_flow_as_one_paragraph():
    # Pasted guidelines broke mid-sentence ("only / shares a word", #21).
    html = render_markdown("A result is Fair when it only\nshares a word with the query.\n\nNext.")
    assert "<p>A result is Fair when it only\nshares a word with the query.</p>" in html
    assert "<br" not in html and "<p>Next.</p>" in html
    # Chinese wraps join without the space a line break would become.
    chinese = render_markdown("结果只和查询\n共享一个词时为一般。")
    assert "结果只和查询共享一个词时为一般。" in chinese
    # A hard break is still there for who asks (two trailing spaces), and code keeps its lines.
    assert "<br" in render_markdown("line one  \nline two")
    assert "代码\n行" in render_markdown("```\n代码\n行\n```")

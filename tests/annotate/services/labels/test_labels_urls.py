"""URL normalisation (README "Labels without raters"): one key per page, whatever the spelling."""

from __future__ import annotations

import pytest

from annotate.services.labels.urls import looks_like_url, normalise_url, try_normalise_url


@pytest.mark.parametrize(
    ("url", "key"),
    [
        # scheme and host lower-cased; http and https are one page
        ("HTTP://Example.COM/Path", "//example.com/Path"),
        ("https://example.com/Path", "//example.com/Path"),
        # default ports dropped, others kept
        ("http://example.com:80/a", "//example.com/a"),
        ("https://example.com:443/a", "//example.com/a"),
        ("https://example.com:8443/a", "//example.com:8443/a"),
        ("http://example.com:443/a", "//example.com:443/a"),
        # fragment dropped
        ("http://example.com/a#section-2", "//example.com/a"),
        # trailing slash dropped; the home page is the empty path
        ("http://example.com/a/", "//example.com/a"),
        ("http://example.com/", "//example.com"),
        ("http://example.com", "//example.com"),
        # www. dropped, unless it is the whole name
        ("http://www.example.com/a", "//example.com/a"),
        ("http://www.com/", "//www.com"),
        ("http://www2.example.com/a", "//www2.example.com/a"),
        # query parameters sorted by name then value, empty ones dropped
        ("http://example.com/s?q=shoes&page=2", "//example.com/s?page=2&q=shoes"),
        ("http://example.com/s?b=2&a=1&&a=0", "//example.com/s?a=0&a=1&b=2"),
        ("http://example.com/s?", "//example.com/s"),
        # percent-encoding: unreserved decoded, other escapes upper-cased, raw ones escaped
        ("http://example.com/%7Euser/%61bc", "//example.com/~user/abc"),
        ("http://example.com/a%2fb", "//example.com/a%2Fb"),
        ("http://example.com/caf%c3%a9", "//example.com/caf%C3%A9"),
        ("http://example.com/café", "//example.com/caf%C3%A9"),
        ("http://example.com/a b", "//example.com/a%20b"),
        ("http://example.com/100%", "//example.com/100%25"),
        ("http://example.com/?q=a+b", "//example.com?q=a+b"),
        # dot segments resolved; the path keeps its case
        ("http://example.com/a/./b/../C", "//example.com/a/C"),
        ("http://example.com/../a", "//example.com/a"),
        # internationalised host, trailing dot, no scheme at all
        ("http://Bücher.de/", "//xn--bcher-kva.de"),
        ("http://example.com./a", "//example.com/a"),
        ("example.com/a/", "//example.com/a"),
        ("//example.com/a", "//example.com/a"),
        ("  https://example.com/a  ", "//example.com/a"),
        # other schemes are kept
        ("FTP://Example.com/file", "ftp://example.com/file"),
    ],
)
def test_it_normalises(url, key):
    assert normalise_url(url) == key


def test_spellings_of_one_page_meet():
    spellings = [
        "https://www.Example.com:443/shop/shoes/?size=42&colour=red#reviews",
        "http://example.com/shop/./shoes?colour=red&size=42",
        "HTTP://EXAMPLE.COM/shop/%73hoes/?colour=red&size=42",
    ]
    assert len({normalise_url(u) for u in spellings}) == 1


def test_different_pages_stay_apart():
    assert normalise_url("http://example.com/a") != normalise_url("http://example.com/A")
    assert normalise_url("http://example.com/a?x=1") != normalise_url("http://example.com/a?x=2")
    assert normalise_url("http://example.com/a%2Fb") != normalise_url("http://example.com/a/b")


@pytest.mark.parametrize("bad", ["", "   ", "http://", "http://example.com:port/"])
def test_it_refuses_what_is_not_a_url(bad):
    with pytest.raises(ValueError):
        normalise_url(bad)
    assert try_normalise_url(bad) is None


def test_a_document_column_is_a_url_when_it_has_a_scheme():
    assert looks_like_url("https://example.com/a")
    assert looks_like_url("//example.com/a")
    assert not looks_like_url("doc-17")
    assert not looks_like_url("example.com/a")

"""The Chinese interface in a real Chromium (issue 20): a rater whose browser asks for zh-CN
grades a query by keyboard, and a manager switches to Chinese and back. Screenshots go to
test-artifacts/ (fonts-noto-cjk makes their characters readable)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from annotate.models import Document, Grade, Label, PoolItem, Preferences, Query, Skip
from tests.browser.test_judging import keys_ready
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCUMENTS = [
    (
        "跃动 Pro 7 男子实战篮球鞋 网面透气款",
        "飞织网面透气；全掌气垫缓震；耐磨橡胶外底。¥599.00，包邮。",
    ),
    ("飞羽 Air 3 男子高帮篮球鞋 皮革鞋面", "超纤皮革鞋面；包裹性强；透气性一般。¥699.00，次日达。"),
    ("疾风 Max 5 篮球袜 加厚毛巾底 5双装", "吸汗防滑；中筒；男女通用。¥49.00，包邮。"),
    ("跃动 Lite 2 女款透气篮球鞋", "网面鞋面；女性楦型；尺码 35-40。¥429.00，库存紧张。"),
]


def chinese_campaign(campaign) -> None:
    """The personas' campaign as a Chinese team runs it: zh-Hans, 好 / 一般 / 差, one query."""
    campaign.language = "zh-hans"
    campaign.guidelines = "按文档满足查询需求的程度评分：**好**、**一般**、**差**。"
    campaign.save()
    for name, grade in (("好", 3), ("一般", 2), ("差", 1)):
        Label.objects.filter(campaign=campaign, grade=grade).update(name=name)
    query = Query.objects.create(
        campaign=campaign, external_id="q1", text="篮球鞋 男 透气", description="夏天室外打球穿"
    )
    for n, (title, snippet) in enumerate(DOCUMENTS):
        doc = Document.objects.create(
            campaign=campaign,
            external_id=f"d{n}",
            title=title,
            url=f"https://mall.example.cn/item/{n}.html",
            snippet=snippet,
        )
        PoolItem.objects.create(campaign=campaign, query=query, document=doc)


def sign_in(page: Page, base_url: str, username: str, *, button: str, hello: str) -> None:
    page.goto(f"{base_url}/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.get_by_role("button", name=button).click()
    expect(page.get_by_role("heading", name=hello)).to_be_visible()


def test_a_rater_whose_browser_asks_for_chinese_grades_by_keyboard(
    personas, live_server, browser, artifacts
):
    chinese_campaign(personas.campaign)
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{live_server.url}/login/")
        expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
        page.screenshot(path=str(artifacts / "zh-login.png"))
        sign_in(page, live_server.url, "rater", button="登录", hello="你好，rater")
        page.screenshot(path=str(artifacts / "zh-home.png"))
        page.locator("#queues").get_by_role("link", name="开始标注").click()

        expect(page.locator("#query-text")).to_have_text("篮球鞋 男 透气")
        expect(page.locator("#query-label")).to_contain_text("查询")
        expect(page.locator("#rater-count")).to_have_text("已完成 0 / 4 · 还剩 4")
        expect(page.get_by_role("button", name="好")).to_have_attribute("aria-keyshortcuts", "G 1")
        expect(page.locator("#skip-button")).to_contain_text("跳过")
        page.screenshot(path=str(artifacts / "zh-judging.png"), full_page=True)

        keys_ready(page)
        page.keyboard.press("?")
        expect(page.locator("#help-dialog")).to_be_visible()
        expect(page.locator("#help-dialog")).to_contain_text("跳过这个文档")
        page.screenshot(path=str(artifacts / "zh-judging-keys.png"))
        page.keyboard.press("Escape")

        given = {}
        for key, label in (("g", "好"), ("2", "一般"), ("b", "差")):
            title = page.locator("#doc-title").inner_text()
            page.keyboard.press(key)
            expect(page.locator("#doc-title")).not_to_have_text(title)
            given[title] = label
        expect(page.locator("#rater-count")).to_have_text("已完成 3 / 4 · 还剩 1")
        expect(page.locator("#save-status")).to_have_text("所有评分已保存")
        page.keyboard.press("Backspace")
        expect(page.locator("#change-banner")).to_contain_text("正在修改之前的评分（当前为 差）")
        page.screenshot(path=str(artifacts / "zh-judging-change.png"))
        page.keyboard.press("Escape")
        expect(page.locator("#change-banner")).to_be_hidden()
        skipped = page.locator("#doc-title").inner_text()
        page.keyboard.press("s")
        expect(page.get_by_role("heading", name="全部完成")).to_be_visible()
        page.screenshot(path=str(artifacts / "zh-all-done.png"))
        assert errors == []
    finally:
        page.goto("about:blank")
        context.close()

    stored = {g.pool_item.document.title: g.label.name for g in Grade.objects.select_related()}
    assert stored == given
    assert Skip.objects.get().pool_item.document.title == skipped


def test_a_manager_switches_to_chinese_and_back(personas, live_server, page, artifacts):
    sign_in(page, live_server.url, "manager", button="Log in", hello="Hello, manager")
    nav = page.get_by_role("navigation", name="Main")
    page.goto(f"{live_server.url}/campaigns/")
    expect(page.get_by_role("heading", name="Campaigns")).to_be_visible()
    page.get_by_test_id("language-picker").get_by_role("button", name="简体中文").click()

    expect(page).to_have_url(f"{live_server.url}/campaigns/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.get_by_role("heading", name="项目")).to_be_visible()
    expect(page.get_by_role("navigation", name="主导航")).to_contain_text("报告")
    page.screenshot(path=str(artifacts / "zh-manager-campaigns.png"), full_page=True)
    assert Preferences.objects.get(user=personas.manager).language == "zh-hans"

    # The choice holds on the next page and on the campaign's pages.
    page.get_by_role("link", name="Campaign A").first.click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    page.screenshot(path=str(artifacts / "zh-manager-campaign.png"), full_page=True)

    page.get_by_test_id("language-picker").get_by_role("button", name="English").click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(nav).to_contain_text("Reports")
    page.screenshot(path=str(artifacts / "en-manager-campaign.png"))
    assert Preferences.objects.get(user=personas.manager).language == "en"


def test_a_manager_reads_the_launch_review_and_report_in_chinese(
    personas, live_server, browser, artifacts
):
    from django.urls import reverse

    from tests.annotate.views.test_sxs_manage import seed_002

    comparison = seed_002(personas)  # G, S, B, B over four queries: do not launch
    kwargs = {"slug": comparison.campaign.slug, "comparison_id": comparison.pk}
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        sign_in(page, live_server.url, "manager", button="登录", hello="你好，manager")
        page.goto(live_server.url + reverse("annotate:sxs_review", kwargs=kwargs))
        gsb = page.get_by_test_id("review-gsb")
        expect(gsb).to_contain_text("在 4 个答案中，实验组胜出 1 个、落后 2 个")
        expect(gsb).not_to_contain_text("The candidate")
        page.screenshot(path=str(artifacts / "zh-launch-review.png"), full_page=True)
        page.goto(live_server.url + reverse("annotate:sxs_report", kwargs=kwargs))
        expect(page.get_by_test_id("decision-sentence")).to_contain_text("实验组胜出 1 个")
        page.screenshot(path=str(artifacts / "zh-gsb-report.png"), full_page=True)
    finally:
        context.close()

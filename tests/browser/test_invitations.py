"""A manager invites a rater from the Raters page; the invitee opens the link in their own
browser, keeps the proposed username, chooses a password and judges an item (issue 20)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from annotate.models import Grade, Membership, Role
from tests.browser.session import log_in
from tests.browser.test_judging import build_campaign, page_errors, settle, shown_title

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INVITEE_PASSWORD = "plum-orchard-violin-42"


def test_an_invitee_accepts_and_judges(personas, live_server, browser, page, artifacts):
    campaign = personas.campaign
    build_campaign(campaign)
    log_in(page, live_server.url, "manager", home=False)
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/raters/")
    invite = page.locator("section", has=page.get_by_role("heading", name="Invite a rater"))
    invite.get_by_label("Name").fill("Zhang Wei")
    invite.get_by_role("button", name="Make the link").click()
    link_box = page.get_by_test_id("invite-link")
    expect(link_box).to_be_visible()
    page.screenshot(path=str(artifacts / "invitation-made.png"), full_page=True)
    link = link_box.input_value()
    assert link.startswith(f"{live_server.url}/invite/")

    # The invitee: another browser, nobody signed in.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    invitee = context.new_page()
    invitee.set_default_timeout(15_000)
    errors = page_errors(invitee)
    try:
        invitee.goto(link)
        expect(invitee.get_by_role("heading", name=f"Join “{campaign.name}”")).to_be_visible()
        expect(invitee.get_by_label("Username")).to_have_value("zhang.wei")
        invitee.get_by_label("Password", exact=True).fill(INVITEE_PASSWORD)
        invitee.get_by_label("Password again").fill(INVITEE_PASSWORD)
        invitee.screenshot(path=str(artifacts / "invitation-accept.png"), full_page=True)
        invitee.get_by_role("button", name="Create my account and join").click()
        expect(invitee.locator("#query-text")).to_have_text("how to descale a kettle")
        expect(invitee.locator("#rater-count")).to_have_text("0 of 7 done · 7 left")
        invitee.screenshot(path=str(artifacts / "invitation-landed.png"), full_page=True)
        first = shown_title(invitee)
        invitee.keyboard.press("g")
        expect(invitee.locator("#doc-title")).not_to_have_text(first)
        invitee.screenshot(path=str(artifacts / "invitation-judging.png"), full_page=True)
        settle(invitee)
        assert errors == []
    finally:
        context.close()

    user = get_user_model().objects.get(username="zhang.wei")
    assert Membership.objects.get(user=user).role == Role.RATER
    grade = Grade.objects.get(rater=user)
    assert grade.pool_item.document.title == first and grade.label.name == "Good"

    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/invitations/")
    expect(page.get_by_test_id("accepted")).to_contain_text("zhang.wei")
    expect(page.get_by_text("No pending invitations.")).to_be_visible()
    page.goto(f"{live_server.url}/campaigns/{campaign.slug}/raters/")
    row = page.locator('tr[data-rater="zhang.wei"]')
    expect(row).to_contain_text("1")  # one grade
    expect(row.get_by_role("button", name="New password link for zhang.wei")).to_be_visible()
    page.screenshot(path=str(artifacts / "raters-after-invitation.png"), full_page=True)


def test_an_invitee_whose_browser_asks_for_chinese_accepts_and_judges_in_chinese(
    personas, live_server, browser, artifacts
):
    from annotate.services.invitations import Invitee, invitations_create
    from tests.browser.test_languages import chinese_campaign

    campaign = personas.campaign
    chinese_campaign(campaign)  # zh-Hans, 好 / 一般 / 差, one query of four documents
    (issued,) = invitations_create(
        campaign=campaign, created_by=personas.manager, invitees=[Invitee("王芳")]
    )
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    invitee = context.new_page()
    invitee.set_default_timeout(15_000)
    errors = page_errors(invitee)
    try:
        invitee.goto(f"{live_server.url}/invite/{issued.secret}/")
        expect(invitee.locator("html")).to_have_attribute("lang", "zh-hans")
        expect(invitee.get_by_role("heading", name=f"加入“{campaign.name}”")).to_be_visible()
        expect(invitee.get_by_label("用户名")).to_have_value("wangfang")  # 王芳, transliterated
        invitee.get_by_label("密码", exact=True).fill(INVITEE_PASSWORD)
        invitee.get_by_label("再次输入密码").fill(INVITEE_PASSWORD)
        invitee.screenshot(path=str(artifacts / "zh-invitation-accept.png"), full_page=True)
        invitee.get_by_role("button", name="创建账号并加入").click()

        expect(invitee.locator("#query-text")).to_have_text("篮球鞋 男 透气")
        expect(invitee.locator("#rater-count")).to_have_text("已完成 0 / 4 · 还剩 4")
        expect(invitee.get_by_role("button", name="好")).to_be_visible()
        first = shown_title(invitee)
        invitee.keyboard.press("g")
        expect(invitee.locator("#doc-title")).not_to_have_text(first)
        expect(invitee.locator("#save-status")).to_have_text("所有评分已保存")
        invitee.screenshot(path=str(artifacts / "zh-invitation-judging.png"), full_page=True)
        invitee.goto("about:blank")
        assert errors == []
    finally:
        context.close()

    user = get_user_model().objects.get(username="wangfang")
    assert Membership.objects.get(user=user, campaign=campaign).role == Role.RATER
    grade = Grade.objects.get(rater=user)
    assert grade.pool_item.document.title == first and grade.label.name == "好"

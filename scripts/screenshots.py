"""Screenshots of every rater and manager screen, in English and Chinese, on a laptop and a
phone (issue 21): `make screenshots`, then open screenshots/index.html.

For each language it builds a throwaway SQLite database with that language's demo campaign
(`manage.py migrate`, `manage.py demo --lang`), adds what the demo lacks for some screens (an
admin account, an open invitation, a password-reset link, a model judge), sets every account's
interface language, serves it with `runserver` on a free port and visits every screen of
`screens()` as its persona in Debian's Chromium, full page, at each width.

It lives in scripts/ rather than in an app's management commands: it is a developer's tool
that needs the test requirements (Playwright) and a browser, and starts servers; nothing of
it belongs in what is deployed. tests/scripts/test_screenshots.py keeps its list of screens
honest against the URL configuration.

    .venv/bin/python scripts/screenshots.py [--lang en zh] [--width 1366 390] [--only TEXT]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
WIDTHS = {1366: 900, 390: 844}
# The demo's language flag and the interface language (settings.LANGUAGES) it is shown in.
LANGUAGES = {"en": "en", "zh": "zh-hans"}
BROWSER_LOCALES = {"en": "en-US", "zh-hans": "zh-CN"}
PASSWORD = "demo"
ADMIN = "admin"
# Pages whose scripts build the screen after loading: shot once they say so.
READY = "[data-ready]"
# The outermost elements that stick out past the right edge (what makes a phone scroll
# sideways), as tag#id.classes: where to look first.
WIDE_ELEMENTS = """() => {
  const edge = document.documentElement.clientWidth + 1, found = [];
  for (const el of document.body.querySelectorAll("*")) {
    const right = (e) => e.getBoundingClientRect().right;
    if (right(el) <= edge || (el.parentElement && right(el.parentElement) > edge)) continue;
    found.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
      + [...el.classList].map((c) => "." + c).join(""));
  }
  return [...new Set(found)].slice(0, 4);
}"""

# URL names deliberately not shot, and why: the anti-rot test fails on any other name that
# has no screen, so a new page must be added to screens() or here.
NOT_SCREENS = {
    "annotate:token_revoke": "POST only",
    "annotate:language": "POST only (the header's picker)",
    "annotate:manage_rater_add": "POST only",
    "annotate:manage_rater_remove": "POST only",
    "annotate:manage_rater_unlock": "POST only",
    "annotate:manage_rater_reset": "POST only",
    "annotate:manage_invitations_bulk": "POST only",
    "annotate:manage_invitation_revoke": "POST only",
    "annotate:manage_needed": "POST only",
    "annotate:manage_release": "POST only",
    "annotate:pool": "POST only (pooling is a section of the campaign page)",
    "annotate:export_qrels": "a download",
    "annotate:export_grades": "a download",
    "annotate:export_verdicts": "a download",
    "annotate:export_gold_answers": "a download",
    "annotate:gold_from_rulings": "POST only (a section of the gold page)",
    "annotate:gold_import": "POST only (a section of the gold page)",
    "annotate:gold_task_import": "POST only (a section of the gold page)",
    "annotate:gold_mark": "POST only",
    "annotate:gold_unmark": "POST only",
    "annotate:gold_task_mark": "POST only",
    "annotate:gold_task_unmark": "POST only",
    "annotate:gold_share": "POST only",
    "annotate:manage_quiz_settings": "POST only (a form of the quiz page)",
    "annotate:quiz_grant": "POST only",
    "annotate:quiz": "the rater's quiz: the demo requires none (its screen is the judging one)",
    "annotate:sxs_quiz": "the rater's quiz: the demo requires none (the side-by-side screen)",
    "annotate:sxs_memo": "a download (Markdown)",
    "annotate:sxs_report_csv": "a download",
    "annotate:sxs_queries_csv": "a download",
    "annotate:judge_item": "the judging screen of judge, opened on one item",
    "annotate:sxs_task": "the side-by-side screen of sxs, opened on one task",
    "annotate:judge_api_queue": "JSON",
    "annotate:judge_api": "JSON",
    "annotate:judge_api_progress": "JSON",
    "annotate:sxs_api_queue": "JSON",
    "annotate:sxs_api_progress": "JSON",
    "annotate:sxs_api": "JSON",
    "jobs:status": "JSON",
    "jobs:recompute": "POST only",
    "jobs:cancel": "POST only",
    "metrics:adjudicate": "POST only",
    "metrics:rater_action": "POST only",
    "metrics:raters_rules": "POST only",
    "metrics:sources_add": "POST only",
    "logout": "POST only",
    "password_change_done": "a confirmation after a POST",
    "javascript-catalog": "JavaScript",
}


@dataclass(frozen=True)
class Screen:
    persona: str  # "anonymous", or the username to log in as
    name: str  # the file name's second half
    url_name: str  # the URL pattern it shows (the anti-rot test checks these)
    url: str
    ready: bool = False  # wait for READY before the shot


def prepare(language: str) -> list[Screen]:
    """Give the demo database (Django set up on it) what the screens need; return them."""
    from annotate.demo.build import DEMO_PASSWORD, demo_campaign

    campaign = demo_campaign(language)
    if campaign is None:
        raise SystemExit(f"no {language} demo campaign: run `manage.py demo --lang {language}`")
    secrets = _extras(campaign, password=DEMO_PASSWORD, interface=LANGUAGES[language])
    return screens(campaign, **secrets)


def _extras(campaign, *, password: str, interface: str) -> dict[str, str]:
    """An admin account, an open invitation, a reset link and a model judge, once; every
    account in the interface language. Returns the link secrets for screens()."""
    from django.contrib.auth import get_user_model

    from annotate.services.accounts import reset_link_create
    from annotate.services.invitations import Invitee, invitations_create
    from annotate.services.preferences import language_save
    from llmjudge.models import ModelJudge
    from llmjudge.prompt import DEFAULT_TEMPLATE

    users = get_user_model().objects
    if not users.filter(username=ADMIN).exists():
        users.create_superuser(ADMIN, f"{ADMIN}@demo.example", password)
    manager = users.get(username="manager")
    for user in users.all():
        language_save(user=user, language=interface)
    invitation = invitations_create(
        campaign=campaign,
        created_by=manager,
        invitees=[Invitee(name="Casey", email="casey@demo.example")],
    )[0]
    ModelJudge.objects.get_or_create(
        campaign=campaign,
        name="demo-judge",
        defaults={
            "base_url": "http://127.0.0.1:9/v1",
            "model": "demo-model",
            "template": DEFAULT_TEMPLATE,
        },
    )
    reset = reset_link_create(actor=manager, user=users.get(username="rater2"))
    return {"invitation": invitation.secret, "reset": reset}


def screens(campaign, *, invitation: str = "", reset: str = "") -> list[Screen]:
    """Every screen of the demo campaign, as the persona who uses it; ids come from the data."""
    from django.urls import reverse

    slug = {"slug": campaign.slug}
    sxs = slug | {"comparison_id": campaign.comparisons.order_by("pk").first().pk}
    rows = [
        ("anonymous", "login", "login", {}),
        *_rater_rows(slug, sxs),
        *_manager_setup_rows(slug),
        *_manager_results_rows(campaign, slug, sxs),
        (ADMIN, "admin", "admin:index", {}),
    ]
    if invitation:
        rows.append(("anonymous", "invitation", "annotate:invitation", {"secret": invitation}))
    if reset:
        rows.append(
            ("anonymous", "password-reset", "annotate:password_reset_link", {"secret": reset})
        )
    judging = {"annotate:judge", "annotate:sxs", "annotate:judge_preview", "annotate:sxs_preview"}
    return [
        Screen(persona, name, url_name, reverse(url_name, kwargs=kwargs), url_name in judging)
        for persona, name, url_name, kwargs in rows
    ]


# A screen before its URL is reversed: (persona, name, URL name, URL keyword arguments).
_Row = tuple[str, str, str, dict]


def _rater_rows(slug: dict, sxs: dict) -> list[_Row]:
    return [
        ("rater1", "home", "annotate:home", {}),
        ("rater1", "judge", "annotate:judge", slug),
        ("rater1", "my-grades", "annotate:judge_history", slug),
        ("rater1", "sxs", "annotate:sxs", sxs),
        ("rater1", "my-answers", "annotate:sxs_history", sxs),
        ("rater1", "preferences", "annotate:preferences", {}),
        ("rater1", "password-change", "password_change", {}),
        ("rater1", "help", "help", {}),
    ]


def _manager_setup_rows(slug: dict) -> list[_Row]:
    """The manager's pages that set a campaign up: settings, scale, imports, raters, gold."""
    from django.contrib.auth import get_user_model

    rater2 = get_user_model().objects.get(username="rater2")
    return [
        ("manager", "home", "annotate:home", {}),
        ("manager", "campaigns", "annotate:campaign_list", {}),
        ("manager", "campaign-new", "annotate:manage_new", {}),
        ("manager", "campaign", "annotate:campaign", slug),
        ("manager", "settings", "annotate:manage_settings", slug),
        ("manager", "scale", "annotate:manage_scale", slug),
        ("manager", "import", "annotate:import", slug),
        ("manager", "raters", "annotate:manage_raters", slug),
        (
            "manager",
            "rater-deactivate",
            "annotate:manage_rater_deactivate",
            slug | {"user_id": rater2.pk},
        ),
        ("manager", "invitations", "annotate:manage_invitations", slug),
        ("manager", "leases", "annotate:manage_leases", slug),
        ("manager", "gold", "annotate:manage_gold", slug),
        ("manager", "quiz", "annotate:manage_quiz", slug),
        ("manager", "tokens", "annotate:tokens", {}),
    ]


def _manager_results_rows(campaign, slug: dict, sxs: dict) -> list[_Row]:
    """The manager's previews, comparisons, jobs, model judges and reports."""
    from annotate.models import Query

    judge = campaign.model_judges.order_by("pk").first()
    query = Query.objects.filter(campaign=campaign).order_by("external_id").first()
    return [
        ("manager", "judge-preview", "annotate:judge_preview", slug),
        ("manager", "sxs-preview", "annotate:sxs_preview", sxs),
        ("manager", "comparisons", "annotate:sxs_comparisons", slug),
        ("manager", "comparison-report", "annotate:sxs_report", sxs),
        ("manager", "comparison-plan", "annotate:sxs_plan", sxs),
        ("manager", "comparison-review", "annotate:sxs_review", sxs),
        ("manager", "comparison-query", "annotate:sxs_query", sxs | {"query_id": query.pk}),
        ("manager", "jobs", "jobs:campaign", slug),
        ("manager", "model-judges", "llmjudge:judges", slug),
        ("manager", "model-judge", "llmjudge:judge", slug | {"name": judge.name}),
        ("manager", "reports", "metrics:index", {}),
        ("manager", "report-dashboard", "metrics:dashboard", slug),
        ("manager", "report-systems", "metrics:systems", slug),
        ("manager", "report-scores", "metrics:queries", slug),
        ("manager", "report-query", "metrics:query", slug | {"query_id": query.pk}),
        ("manager", "report-compare", "metrics:compare", slug),
        ("manager", "report-disagreements", "metrics:disagreements", slug),
        ("manager", "report-raters", "metrics:raters", slug),
        ("manager", "report-sources", "metrics:sources", slug),
        ("manager", "preferences", "annotate:preferences", {}),
        ("manager", "help", "help", {}),
    ]


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [PYTHON, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _database(workdir: Path, language: str) -> tuple[dict[str, str], list[Screen]]:
    """A migrated throwaway database with the language's demo; the screens found in it."""
    env = os.environ | {
        "DATABASE_URL": f"sqlite:///{workdir / 'db.sqlite3'}",
        "DEBUG": "1",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    _manage(env, "migrate", "--noinput")
    _manage(env, "demo", "--lang", language)
    # Django is set up once per process, on one database: the look-up runs in a child.
    done = subprocess.run(
        [PYTHON, __file__, "--prepare", language],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise SystemExit(f"preparing the {language} demo failed:\n{done.stderr}")
    return env, [Screen(**row) for row in json.loads(done.stdout)]


def _serve(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    server = subprocess.Popen(
        [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{base}/login/", timeout=2)
            return server, base
        except OSError:
            if server.poll() is not None:
                raise SystemExit("the development server did not start") from None
            time.sleep(0.1)
    server.terminate()
    raise SystemExit("the development server did not answer within a minute")


@dataclass
class Shot:
    screen: Screen
    path: str  # relative to the output directory
    status: int
    overflow: int  # pixels of horizontal scroll; 0 is right
    note: str = ""


def shoot(browser, base: str, screens: list[Screen], *, language: str, width: int, out: Path):
    """Each screen as its persona at one width, full page, into out/<lang>/<width>/."""
    folder = out / language / str(width)
    folder.mkdir(parents=True, exist_ok=True)
    shots = []
    for persona in dict.fromkeys(s.persona for s in screens):
        context = browser.new_context(
            viewport={"width": width, "height": WIDTHS.get(width, 900)},
            locale=BROWSER_LOCALES[language],
        )
        page = context.new_page()
        page.set_default_timeout(20_000)
        if persona != "anonymous":
            _log_in(page, base, persona)
        for screen in (s for s in screens if s.persona == persona):
            shots.append(_one(page, base, screen, folder, f"{language}/{width}"))
        context.close()
    return shots


def _log_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    with page.expect_navigation():
        page.press("#id_password", "Enter")
    if "/login/" in page.url:
        raise SystemExit(f"could not log in as {username}")


def _one(page, base: str, screen: Screen, folder: Path, prefix: str) -> Shot:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    response = page.goto(base + screen.url)
    note = ""
    if screen.ready:
        try:
            page.wait_for_selector(READY, state="attached", timeout=15_000)
        except PlaywrightTimeout:  # shot anyway, and said so on the sheet
            note = "never became ready"
    # Web fonts and the last layout before the shot.
    page.evaluate("document.fonts.ready.then(() => 0)")
    overflow = page.evaluate(
        "Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth)"
    )
    if overflow:
        note = "; ".join([note, "too wide: " + ", ".join(page.evaluate(WIDE_ELEMENTS))]).strip("; ")
    name = f"{screen.persona}-{screen.name}.png"
    page.screenshot(path=str(folder / name), full_page=True)
    return Shot(screen, f"{prefix}/{name}", response.status if response else 0, overflow, note)


def contact_sheet(shots: list[Shot], out: Path) -> Path:
    """out/index.html: every shot, grouped by language and width, problems named."""
    parts = [
        "<!doctype html><meta charset=utf-8><title>Screenshots</title>",
        "<style>body{font:14px sans-serif;margin:1em}figure{display:inline-block;margin:.5em;"
        "vertical-align:top;width:260px}img{width:100%;border:1px solid #ccc}"
        "figcaption{word-break:break-all}.bad{color:#b00;font-weight:bold}</style>",
        "<h1>Screenshots</h1>",
    ]
    groups: dict[str, list[Shot]] = {}
    for shot in shots:
        groups.setdefault(shot.path.rsplit("/", 1)[0], []).append(shot)
    for group, members in groups.items():
        parts.append(f"<h2>{html.escape(group)}</h2>")
        for shot in members:
            problems = _problems(shot)
            caption = html.escape(f"{shot.screen.persona} · {shot.screen.name} · {shot.screen.url}")
            warn = f"<br><span class=bad>{html.escape(problems)}</span>" if problems else ""
            parts.append(
                f'<figure><a href="{html.escape(shot.path)}"><img loading=lazy '
                f'src="{html.escape(shot.path)}"></a><figcaption>{caption}{warn}'
                "</figcaption></figure>"
            )
    index = out / "index.html"
    index.write_text("\n".join(parts), encoding="utf-8")
    return index


def _problems(shot: Shot) -> str:
    found = []
    if shot.status != 200:
        found.append(f"HTTP {shot.status}")
    if shot.overflow:
        found.append(f"scrolls sideways by {shot.overflow}px")
    if shot.note:
        found.append(shot.note)
    return "; ".join(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", nargs="+", choices=sorted(LANGUAGES), default=["en", "zh"])
    parser.add_argument("--width", nargs="+", type=int, default=list(WIDTHS))
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument(
        "--only",
        default="",
        help="only screens whose file name contains this (the others' pictures are kept; "
        "the contact sheet lists this run's)",
    )
    parser.add_argument("--prepare", help=argparse.SUPPRESS)  # the child of _database()
    args = parser.parse_args(argv)
    if args.prepare:
        return _prepare_child(args.prepare)
    from playwright.sync_api import sync_playwright

    if "zh" in args.lang and not (ROOT / "locale/zh_Hans/LC_MESSAGES/django.mo").exists():
        # Without the compiled catalogue the Chinese pages come out in English.
        raise SystemExit("the translations are not compiled: run `make messages` first")
    if args.out.exists() and not args.only:
        shutil.rmtree(args.out)  # a whole run: no picture of a screen that has gone is left
    shots: list[Shot] = []
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for language in args.lang:
            workdir = Path(tmp) / language
            workdir.mkdir()
            print(f"{language}: building the demo database", flush=True)
            env, found = _database(workdir, language)
            found = [s for s in found if args.only in f"{s.persona}-{s.name}"]
            server, base = _serve(env)
            try:
                for width in args.width:
                    print(f"{language} {width}px: {len(found)} screens", flush=True)
                    shots += shoot(
                        browser,
                        base,
                        found,
                        language=LANGUAGES[language],
                        width=width,
                        out=args.out,
                    )
            finally:
                server.terminate()
                server.wait()
        browser.close()
    index = contact_sheet(shots, args.out)
    for shot in shots:
        if problems := _problems(shot):
            print(f"  {shot.path}: {problems}")
    print(f"{len(shots)} screenshots: {index}")
    return 0


def _prepare_child(language: str) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    print(json.dumps([asdict(s) for s in prepare(language)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

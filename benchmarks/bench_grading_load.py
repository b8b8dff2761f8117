"""The load side of bench_grading.py: CPU accounting from /proc and the open-loop generator.

Kept apart so bench_grading.py reads as setup, run, check and report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import string
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SLUG = "bench"
GIVE_UP_S = 10.0  # a request that could not even be sent this long after its due time fails
RETRIES = 2  # after a network error or a client timeout (GIVE_UP_S * 3)


# -- CPU accounting: what each request costs, whatever else runs on the machine ---------------


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except FileNotFoundError:
        return []


class CpuMeter:
    """CPU seconds used by gunicorn (master and workers), by the PostgreSQL backends serving
    the benchmark database, and by this load generator."""

    def __init__(self, server_pid: int, args: argparse.Namespace) -> None:
        self.server_pid = server_pid
        self.dsn = f"{args.pg}/postgres"
        self.db = args.db

    def _db_pids(self) -> list[int]:
        import psycopg

        with psycopg.connect(self.dsn) as conn:
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", [self.db]
            ).fetchall()
        return [row[0] for row in rows]

    def snapshot(self) -> dict[str, dict[int, float]]:
        server = [self.server_pid, *_children(self.server_pid)]
        return {
            "app": {pid: _cpu_seconds(pid) for pid in server},
            "db": {pid: _cpu_seconds(pid) for pid in self._db_pids()},
            "generator": {0: time.process_time()},
        }

    def since(self, before: dict, after: dict) -> dict[str, float]:
        # A process that started during the run counts from zero.
        return {
            part: sum(value - before[part].get(pid, 0.0) for pid, value in after[part].items())
            for part in after
        }


# -- the load generator -----------------------------------------------------------------------


@dataclass(frozen=True)
class Mode:
    """What one kind of judging sends: its two endpoints (paths under the server), the key
    of the held tasks in their answers, and the body of one answer."""

    queue_path: str
    answer_path: str
    held_key: str

    def body(self, task: int, labels: list[int], rng: random.Random) -> dict:
        seconds = round(rng.uniform(2, 20), 2)
        if self.held_key == "items":
            return {
                "item": task,
                "action": "label",
                "label": rng.choice(labels),
                "seconds": seconds,
            }
        chosen = rng.choice(["left", "same", "right"])
        strength = None if chosen == "same" else rng.choice([1, 2, 3])
        return {"task": task, "chosen": chosen, "strength": strength, "seconds": seconds}


def mode_for(seeded: dict) -> Mode:
    if seeded.get("comparison"):
        base = f"/sxs/{SLUG}/{seeded['comparison']}/api"
        return Mode(f"{base}/queue/", f"{base}/verdicts/", "tasks")
    return Mode(f"/judge/{SLUG}/api/queue/", f"/judge/{SLUG}/api/judgments/", "items")


@dataclass
class Rater:
    session: str
    csrf: str
    items: list[int] = field(default_factory=list)

    def headers(self) -> dict[str, str]:
        return {
            "Cookie": f"sessionid={self.session}; csrftoken={self.csrf}",
            "X-CSRFToken": self.csrf,
            "Content-Type": "application/json",
        }


@dataclass
class RateResult:
    rate: float
    sent: int
    latencies_ms: list[float]
    statuses: dict[str, int]
    created: int
    elapsed_s: float
    lost: int = 0
    cpu_s: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict:
        lat = np.array(self.latencies_ms) if self.latencies_ms else np.array([np.nan])
        # "inverted_cdf" picks an observed value, so a share of failed (infinite) requests
        # shows as infinite percentiles instead of breaking the interpolation.
        p50, p95, p99 = np.percentile(lat, [50, 95, 99], method="inverted_cdf")
        return {
            "rate": self.rate,
            "sent": self.sent,
            "answered": int(np.isfinite(lat).sum()),
            "answered_per_s": round(float(np.isfinite(lat).sum()) / self.elapsed_s, 1),
            "p50_ms": round(float(p50), 1),
            "p95_ms": round(float(p95), 1),
            "p99_ms": round(float(p99), 1),
            "max_ms": round(float(np.max(lat)), 1),
            "statuses": self.statuses,
            "created": self.created,
            "lost": self.lost,
            "cpu_ms_per_request": {
                part: round(1000 * seconds / max(int(np.isfinite(lat).sum()), 1), 2)
                for part, seconds in self.cpu_s.items()
            },
        }


async def wait_until_up(base: str, timeout: float = 30.0) -> None:
    import aiohttp

    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            try:
                async with http.get(f"{base}/login/") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise SystemExit("gunicorn did not answer in time")


async def login_once(base: str, username: str, password: str) -> None:
    """One real login through the form: the sessions the setup made are of the same kind."""
    import aiohttp

    # The cookies are Secure (production settings) and this is plain HTTP on the loopback, so
    # a client's cookie jar would not send them back: carry them by hand.
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
        async with http.get(f"{base}/login/") as page:
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', await page.text())
            csrf = page.cookies["csrftoken"].value
        form = {"username": username, "password": password, "csrfmiddlewaretoken": token[1]}
        headers = {"Cookie": f"csrftoken={csrf}"}
        async with http.post(
            f"{base}/login/", data=form, headers=headers, allow_redirects=False
        ) as response:
            if response.status != 302:
                raise SystemExit(f"the real login failed with HTTP {response.status}")
            session = response.cookies["sessionid"].value
        headers = {"Cookie": f"sessionid={session}"}
        async with http.get(f"{base}/judge/{SLUG}/api/queue/", headers=headers) as response:
            if response.status != 200:
                raise SystemExit(f"a logged-in rater got HTTP {response.status} for its queue")


async def fetch_queues(http, base: str, raters: list[Rater], mode: Mode) -> None:
    """Each rater leases its first query (not timed; slow on a busy machine, hence the
    generous timeout and the small number at a time)."""
    import aiohttp

    gate = asyncio.Semaphore(4)
    timeout = aiohttp.ClientTimeout(total=600)

    async def one(rater: Rater) -> None:
        url = f"{base}{mode.queue_path}"
        async with gate, http.get(url, headers=rater.headers(), timeout=timeout) as response:
            body = await response.json()
            rater.items = [item["id"] for item in body.get(mode.held_key, [])]

    await asyncio.gather(*(one(rater) for rater in raters))
    print(f"{sum(1 for r in raters if r.items)} raters hold a query", flush=True)


def analyze(args: argparse.Namespace) -> None:
    """Table statistics for the planner, and the dead rows of the warm-up's leases (a grade
    deletes its lease) removed, as autovacuum does on a live database within a minute of a
    bulk change; on the lease table, which churns at the grading rate, every few seconds.
    Without statistics (autovacuum is off on some servers, and the seed and the queue fetch
    happen seconds before the run) PostgreSQL guesses the pool holds 60 items and scans all
    10,000 for every rater's held items: 1.4 ms of database CPU per grade instead of 0.3.
    The timed runs themselves get no vacuum here: their dead rows stay."""
    import psycopg

    with psycopg.connect(f"{args.pg}/{args.db}", autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


async def grade_next(http, url: str, rater: Rater, labels, rng, mode: Mode) -> tuple[str, dict]:
    """The rater answers the next task it holds (a grade, or a verdict in side-by-side mode);
    returns the HTTP status (or the error's name) and the answer, and leaves the rater holding
    what the answer says it holds."""
    # Like judge-core.js, the answer says which tasks the page holds ("known"): the reply
    # sends those as their name alone.
    known = list(rater.items)
    item = rater.items.pop(0)
    body = {**mode.body(item, labels, rng), "known": known}
    status, answer = "error", {}
    # Like judge.js: a request that failed in transit is sent again, the same body; the
    # server stores it once, so a retry that finds the grade answers "unchanged".
    for _attempt in range(RETRIES + 1):
        try:
            async with http.post(url, json=body, headers=rater.headers()) as response:
                answer = await response.json(content_type=None)
                status = str(response.status)
                break
        except Exception as exc:  # counted, never fatal: the run goes on at its schedule
            status = type(exc).__name__
    if answer:
        rater.items = [x["id"] for x in answer.get(mode.held_key, []) if x["id"] != item]
    return status, answer


async def warm_up(
    http, base: str, raters: list[Rater], labels, seed: int, mode: Mode
) -> RateResult:
    """Desynchronise the raters before anything is timed: each grades a seeded random number
    of the items it holds, 0 to all but one, through the same endpoint.

    Every rater leased its first query in the same second, so without this all of them would
    reach a query boundary, and lease the next query, within the same few seconds of the first
    timed run: a burst no live campaign produces, where raters started at different times and
    are at random points of their queries. Not timed; its grades count in the database check.
    """
    url = f"{base}{mode.answer_path}"
    rng = random.Random(f"warm-up {seed}")
    gate = asyncio.Semaphore(8)  # about what the server serves at once; the rest queue here
    started = time.monotonic()
    statuses: dict[str, int] = {}
    created = lost = sent = 0

    async def one(rater: Rater, count: int) -> None:
        nonlocal created, lost, sent
        for _ in range(count):
            async with gate:
                status, answer = await grade_next(http, url, rater, labels, rng, mode)
            sent += 1
            statuses[status] = statuses.get(status, 0) + 1
            if answer.get("result") in ("created", "unchanged"):
                created += 1
            elif not answer:
                lost += 1

    counts = [rng.randrange(len(rater.items)) if rater.items else 0 for rater in raters]
    await asyncio.gather(*(one(rater, n) for rater, n in zip(raters, counts, strict=True)))
    elapsed = time.monotonic() - started
    print(f"warm-up: {sent} grades in {elapsed:.1f} s, statuses {statuses}", flush=True)
    return RateResult(0.0, sent, [], statuses, created, elapsed, lost)


async def run_rate(
    http, base: str, idle: asyncio.Queue, labels, rate, duration, rng, mode: Mode
) -> RateResult:
    loop = asyncio.get_running_loop()
    url = f"{base}{mode.answer_path}"
    count = int(rate * duration)
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    created = lost = 0

    async def one(due: float) -> None:
        nonlocal created, lost
        try:
            rater = await asyncio.wait_for(idle.get(), timeout=due + GIVE_UP_S - loop.time())
        except TimeoutError:
            # Every rater is still waiting for an answer: the server is far behind. Counted as
            # a failed request of infinite latency, so the run still ends on time.
            latencies.append(float("inf"))
            statuses["not sent: server saturated"] = (
                statuses.get("not sent: server saturated", 0) + 1
            )
            return
        status, answer = await grade_next(http, url, rater, labels, rng, mode)
        if answer.get("result") in ("created", "unchanged"):
            created += 1
        elif not answer:
            lost += 1  # no answer at all: whether it was stored is unknown
        # A refusal or a loss is a failure whatever it took: infinite latency.
        latencies.append((loop.time() - due) * 1000 if answer.get("ok") else float("inf"))
        statuses[status] = statuses.get(status, 0) + 1
        if rater.items:
            idle.put_nowait(rater)

    start = loop.time() + 0.05
    tasks = []
    for i in range(count):
        due = start + i / rate
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(due)))
    await asyncio.gather(*tasks)
    return RateResult(rate, count, latencies, statuses, created, loop.time() - start, lost)


async def load(
    args: argparse.Namespace, seeded: dict, meter: CpuMeter
) -> tuple[list[RateResult], RateResult | None]:
    """The timed runs, one per rate, and the warm-up (None with --synchronized)."""
    import aiohttp

    base = f"http://127.0.0.1:{args.port}"
    await wait_until_up(base)
    await login_once(base, "rater0000", "bench-password")
    alphabet = string.ascii_letters + string.digits
    raters = [
        Rater(session=s, csrf="".join(secrets.choice(alphabet) for _ in range(32)))
        for s in seeded["sessions"]
    ]
    connector = aiohttp.TCPConnector(limit=512)
    timeout = aiohttp.ClientTimeout(total=GIVE_UP_S * 3)
    jar = aiohttp.DummyCookieJar()  # each request carries its own rater's cookies
    results = []
    warm = None
    async with aiohttp.ClientSession(connector=connector, cookie_jar=jar, timeout=timeout) as http:
        mode = mode_for(seeded)
        await fetch_queues(http, base, raters, mode)
        if not args.synchronized:
            warm = await warm_up(http, base, raters, seeded["labels"], args.seed, mode)
        await asyncio.to_thread(analyze, args)
        idle: asyncio.Queue = asyncio.Queue()
        for rater in raters:
            if rater.items:
                idle.put_nowait(rater)
        rng = random.Random(args.seed)
        for rate in [float(r) for r in args.rates.split(",")]:
            before = meter.snapshot()
            result = await run_rate(
                http, base, idle, seeded["labels"], rate, args.duration, rng, mode
            )
            result.cpu_s = meter.since(before, meter.snapshot())
            results.append(result)
            print(json.dumps(result.summary()), flush=True)
            await asyncio.sleep(2)
    return results, warm

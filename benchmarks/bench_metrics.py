"""Speed and memory of the metrics engine against pytrec_eval and ranx, on the same files.

One invocation measures, on one generated qrels/run pair (benchmarks/gen_trec.py):

* end to end, as whole processes (read both files, evaluate, print):
  ``python -m metrics -m ndcg_cut.10 -m map -m P.10 -m recall.100 -m recip_rank QRELS RUN``
  against ``python benchmarks/bench_metrics_pytrec.py QRELS RUN`` (pytrec_eval's parsers and
  evaluator); wall time and peak resident memory of each child (``os.wait4``'s rusage);
* evaluation alone, once the files are parsed, each tool in a fresh worker process:
  ``metrics.core.evaluate`` after ``read_qrels``/``read_run``; ``ranx.evaluate`` on built
  ``Qrels``/``Run`` objects; pytrec_eval's ``RelevanceEvaluator.evaluate``; every tool gets
  one warm-up call on the same data first (for ranx, numba's JIT compilation), then each timed
  call gets freshly loaded objects (so no work cached on them by an earlier call is hidden);
* the means of the three tools, and their largest difference, so that the comparison is
  known to be like with like.

Each timing is repeated (``--repeat``, best and median reported). ``--big`` runs only our
engine on 100,000 queries x 1,000 documents (100,000,000 run lines). Results are printed as a
Markdown table and saved as JSON in benchmarks/out/.

Usage::

    python benchmarks/bench_metrics.py            # 10,000 x 100, 50 judged; all three tools
    python benchmarks/bench_metrics.py --big      # 100,000 x 1,000, our engine only
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gen_trec  # a sibling script: benchmarks/ is on sys.path when this file is run

REPO = Path(__file__).resolve().parents[1]
OUT_DIR = REPO / "benchmarks" / "out"
PYTREC_SCRIPT = REPO / "benchmarks" / "bench_metrics_pytrec.py"

# trec_eval syntax (what our CLI, our API and pytrec_eval take) -> the names of the results.
MEASURES = ["ndcg_cut.10", "map", "P.10", "recall.100", "recip_rank"]
NAMES = ["ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank"]
# ranx's names for the same measures: same gains (linear), same ideal (every judged document,
# cut at k), relevant from grade 1, MRR without cut-off like trec_eval's recip_rank.
RANX_METRICS = {
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
    "P_10": "precision@10",
    "recall_100": "recall@100",
    "recip_rank": "mrr",
}

GOAL_E2E_SPEEDUP = 2.0  # pytrec_eval / ours, end to end
GOAL_EVAL_SPEEDUP = 1.0  # ranx / ours, evaluation alone
GOAL_RSS_RATIO = 4.0  # peak RSS / input size, ours end to end

FLOOR = "python -c 'import numpy, polars'"

BIG = gen_trec.Spec(queries=100_000, docs=1_000, judged=50)


# --------------------------------------------------------------------------- child processes


@dataclass
class ProcRun:
    """One finished child process."""

    wall_s: float
    cpu_s: float  # user + system: less sensitive than wall time to other load on the machine
    maxrss_bytes: int
    returncode: int
    stdout: str
    stderr: str
    # (seconds since start, RSS bytes), sampled by the memory guard.
    rss_samples: list[tuple[float, int]] = field(default_factory=list)
    killed: str | None = None  # why the memory guard killed the child, if it did


# The machine is shared: rather than let the kernel's OOM killer pick a victim (possibly
# someone else's process), the guard kills our own child when free memory runs this low.
MIN_AVAILABLE_BYTES = 1 << 30


def _meminfo_available() -> int:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 1 << 62


def _rss_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _guard(proc: subprocess.Popen[str], run: ProcRun, start: float, stop: threading.Event) -> None:
    """Sample the child's RSS every second; kill it if the machine runs out of memory."""
    while not stop.wait(1.0):
        run.rss_samples.append((time.perf_counter() - start, _rss_of(proc.pid)))
        available = _meminfo_available()
        if available < MIN_AVAILABLE_BYTES:
            run.killed = f"memory guard: only {available / 2**30:.1f} GiB left on the machine"
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
            return


def run_process(cmd: list[str], *, guard: bool = False) -> ProcRun:
    """Run ``cmd`` from the repository root; time it and read its own peak RSS.

    ``os.wait4`` returns the rusage of exactly this child, where
    ``getrusage(RUSAGE_CHILDREN)`` would give the maximum over every child so far. Output goes
    to temporary files rather than pipes so that reaping with ``wait4`` cannot deadlock.
    With ``guard``, a thread samples the child's RSS and kills it before the machine runs out.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=err, text=True)
        result = ProcRun(0.0, 0.0, 0, 0, "", "")
        stop = threading.Event()
        watcher = threading.Thread(target=_guard, args=(proc, result, start, stop), daemon=True)
        if guard:
            watcher.start()
        _, status, usage = os.wait4(proc.pid, 0)
        result.wall_s = time.perf_counter() - start
        stop.set()
        if guard:
            watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: tell Popen
        out.seek(0)
        err.seek(0)
        result.cpu_s = usage.ru_utime + usage.ru_stime
        result.maxrss_bytes = usage.ru_maxrss * 1024  # ru_maxrss is in KiB on Linux
        result.returncode = proc.returncode
        result.stdout, result.stderr = out.read(), err.read()
        if result.killed:
            result.stderr += "\n" + result.killed
        return result


def parse_trec_eval_means(text: str) -> dict[str, float]:
    """The ``measure all value`` lines of trec_eval-style output."""
    means: dict[str, float] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all":
            try:
                means[parts[0]] = float(parts[2])
            except ValueError:
                continue
    return means


@dataclass
class Timing:
    """Repeated measurements of one tool in one phase."""

    tool: str
    phase: str
    times_s: list[float] = field(default_factory=list)
    cpu_s: list[float] = field(default_factory=list)  # whole processes only
    maxrss_bytes: int = 0
    means: dict[str, float] = field(default_factory=dict)
    extra: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    rss_samples: list[tuple[float, int]] = field(default_factory=list)  # of the last run

    @property
    def best(self) -> float:
        return min(self.times_s) if self.times_s else float("nan")

    @property
    def median(self) -> float:
        return statistics.median(self.times_s) if self.times_s else float("nan")


def _failure(run: ProcRun) -> str:
    tail = (run.stderr.strip().splitlines() or ["(no stderr)"])[-3:]
    # "; " rather than "|": the message lands in a Markdown table.
    return f"exit {run.returncode}: " + "; ".join(line.strip() for line in tail)


def end_to_end(cmds: dict[str, list[str]], repeat: int) -> list[Timing]:
    """Run every command ``repeat`` times, round robin.

    Interleaving the tools (rather than all repeats of one, then the next) spreads whatever
    else the machine is doing evenly over them, so the ratios stay fair on a shared machine.
    """
    timings = {tool: Timing(tool, "end to end") for tool in cmds}
    for i in range(repeat):
        for tool, cmd in cmds.items():
            timing = timings[tool]
            if timing.error:
                continue
            print(f"  {tool} #{i + 1} ...", end=" ", flush=True)
            run = run_process(cmd, guard=True)
            timing.rss_samples = run.rss_samples
            # The largest peak over the repeats: the memory goal is about the worst case.
            timing.maxrss_bytes = max(timing.maxrss_bytes, run.maxrss_bytes)
            if run.returncode != 0:
                timing.error = _failure(run)
                timing.times_s.clear()  # a failed tool's times mean nothing
                timing.cpu_s.clear()
                print("FAILED", flush=True)
                continue
            print(f"{run.wall_s:.3f} s, {run.maxrss_bytes / 2**20:,.0f} MiB", flush=True)
            timing.times_s.append(run.wall_s)
            timing.cpu_s.append(run.cpu_s)
            timing.means = parse_trec_eval_means(run.stdout)
    return list(timings.values())


def evaluation_alone(tool: str, qrels: Path, run: Path, repeat: int) -> Timing:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", tool]
    cmd += ["--repeat", str(repeat), str(qrels), str(run)]
    proc = run_process(cmd, guard=True)
    timing = Timing(tool, "evaluation alone", maxrss_bytes=proc.maxrss_bytes)
    timing.rss_samples = proc.rss_samples
    if proc.returncode != 0:
        timing.error = _failure(proc)
        return timing
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    timing.times_s = report["times_s"]
    timing.means = report["means"]
    timing.extra = report["extra"]
    return timing


# --------------------------------------------------------------------------- workers
# Each runs in a fresh process (``--worker TOOL``) so that one tool's parsed data, threads or
# JIT caches never weigh on another's timing, and prints one JSON line.


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _fresh_repeated(
    load: Callable[[], Any], evaluate: Callable[[Any], Any], repeat: int
) -> tuple[dict[str, float], list[float], Any]:
    """A warm-up, then ``repeat`` evaluations, each on freshly loaded objects.

    The warm-up (load and evaluate once, not used in the ratios) is what every tool gets: for
    ranx it compiles numba's kernels for the real data's types (a tiny pair would not do:
    numba specialises on the width of the string arrays); for the others it pays for lazily
    imported modules. Fresh objects for every timed call, because an engine may cache work
    (join keys, sort orders) on its Qrels/Run objects at the first evaluation: timing repeated
    calls on the same objects would hide that work.
    """
    first_load, data = _timed(load)
    peak_load = _peak_mib()
    first_eval, value = _timed(lambda: evaluate(data))
    peak_eval = _peak_mib()
    if repeat == 0:
        # --big: one load is all the time there is; the warm-up is the measurement.
        extra = {"load_s": first_load, "peak_after_load_mib": peak_load}
        return extra | {"peak_after_eval_mib": peak_eval}, [first_eval], value
    loads: list[float] = []
    times: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        del data  # free the previous copy before building the next: peak memory stays honest
        elapsed, data = _timed(load)
        loads.append(elapsed)
        cpu = time.process_time()
        elapsed, value = _timed(lambda d=data: evaluate(d))
        # CPU of every thread of the process: steadier than wall time on a busy machine, but
        # it counts a multi-threaded tool's (ranx's numba) cores twice: for reading only.
        cpus.append(time.process_time() - cpu)
        times.append(elapsed)
    extra = {
        "load_best_s": min(loads, default=first_load),
        "warmup_load_s": first_load,
        "warmup_eval_s": first_eval,
        "eval_cpu_best_s": min(cpus),
        # Peaks in the warm-up, before and after evaluating: which step needs the memory.
        "peak_after_load_mib": peak_load,
        "peak_after_eval_mib": peak_eval,
    }
    return extra, times, value


def worker_ours(qrels_path: str, run_path: str, repeat: int) -> dict[str, Any]:
    from metrics import core

    def load() -> tuple[Any, Any]:
        return core.read_qrels(qrels_path), core.read_run(run_path)

    extra, times, result = _fresh_repeated(
        load, lambda d: core.evaluate(d[0], d[1], list(MEASURES)), repeat
    )
    means = {name: float(result.mean[name]) for name in NAMES}
    return {"times_s": times, "means": means, "extra": extra}


def worker_ranx(qrels_path: str, run_path: str, repeat: int) -> dict[str, Any]:
    import ranx

    metrics = [RANX_METRICS[name] for name in NAMES]

    def load() -> tuple[Any, Any]:
        return (
            ranx.Qrels.from_file(qrels_path, kind="trec"),
            ranx.Run.from_file(run_path, kind="trec"),
        )

    # save_results_in_run=False skips a Python loop that copies per-query scores into the
    # Run: ranx's fastest path, so the comparison is conservative for us. Threads: numba's
    # default, every core.
    extra, times, scores = _fresh_repeated(
        load, lambda d: ranx.evaluate(d[0], d[1], metrics, save_results_in_run=False), repeat
    )
    means = {name: float(scores[RANX_METRICS[name]]) for name in NAMES}
    return {"times_s": times, "means": means, "extra": extra}


def worker_pytrec_eval(qrels_path: str, run_path: str, repeat: int) -> dict[str, Any]:
    import pytrec_eval

    def load() -> tuple[Any, Any]:
        # The evaluator holds the parsed qrels in C structures: part of loading, not of
        # evaluating, as ranx's Qrels and ours are.
        with open(qrels_path) as q_fh, open(run_path) as r_fh:
            qrels, run = pytrec_eval.parse_qrel(q_fh), pytrec_eval.parse_run(r_fh)
        return pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)), run

    extra, times, per_query = _fresh_repeated(load, lambda d: d[0].evaluate(d[1]), repeat)
    n = len(per_query)
    means = {name: sum(s[name] for s in per_query.values()) / n for name in NAMES}
    return {"times_s": times, "means": means, "extra": extra}


WORKERS: dict[str, Callable[[str, str, int], dict[str, Any]]] = {
    "ours": worker_ours,
    "ranx": worker_ranx,
    "pytrec_eval": worker_pytrec_eval,
}


# --------------------------------------------------------------------------- report


def max_abs_diff(a: dict[str, float], b: dict[str, float]) -> float | None:
    common = [name for name in NAMES if name in a and name in b]
    if len(common) != len(NAMES):
        return None
    return max(abs(a[name] - b[name]) for name in common)


def _fmt_s(seconds: float) -> str:
    return "-" if seconds != seconds else f"{seconds:.3f}"  # NaN when a tool failed


def _mib(n: int) -> str:
    return f"{n / 2**20:,.0f}"


def _ratio(num: float, den: float) -> float:
    return num / den if den and den == den and num == num else float("nan")


def _x(ratio: float) -> str:
    return "n/a" if ratio != ratio else f"{ratio:.2f}x"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "NOT MET")


def _loads(loads: tuple[float, float, float]) -> str:
    return ", ".join(f"{x:.2f}" for x in loads)


def wait_for_quiet(max_seconds: float, threshold: float) -> None:
    """On a shared machine, other jobs inflate wall times: give them a chance to finish."""
    deadline = time.monotonic() + max_seconds
    while os.getloadavg()[0] >= threshold and time.monotonic() < deadline:
        time.sleep(10)
    print(f"load average before starting: {_loads(os.getloadavg())}", flush=True)


def machine() -> dict[str, str]:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "date": dt.datetime.now().astimezone().isoformat(timespec="minutes"),
    }


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found: dict[str, str] = {}
    for dist in ("numpy", "polars", "pytrec-eval-terrier", "ranx", "numba"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = "absent"
    return found


def report(
    spec: gen_trec.Spec, input_bytes: int, timings: list[Timing], big: bool
) -> dict[str, Any]:
    by = {(t.tool, t.phase): t for t in timings}
    lines = [
        "| phase | tool | best s | median s | CPU s | peak RSS MiB | RSS / input | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for t in timings:
        notes = ", ".join(
            f"{k} {v:,.0f}" if k.endswith("_mib") else f"{k} {v:.3f}" for k, v in t.extra.items()
        )
        if t.error:
            notes = f"FAILED {t.error}"
        lines.append(
            f"| {t.phase} | {t.tool} | {_fmt_s(t.best)} | {_fmt_s(t.median)} | "
            f"{_fmt_s(min(t.cpu_s, default=float('nan')))} | "
            f"{_mib(t.maxrss_bytes)} | {t.maxrss_bytes / input_bytes:.2f} | {notes} |"
        )

    ours_e2e = by.get(("ours", "end to end"))
    ours_eval = by.get(("ours", "evaluation alone"))
    py_e2e = by.get(("pytrec_eval", "end to end"))
    ranx_eval = by.get(("ranx", "evaluation alone"))
    ours_ok = ours_e2e is not None and ours_e2e.error is None

    e2e_ratio = _ratio(py_e2e.best, ours_e2e.best) if py_e2e and ours_e2e else float("nan")
    eval_ratio = _ratio(ranx_eval.best, ours_eval.best) if ranx_eval and ours_eval else float("nan")
    rss_ratio = ours_e2e.maxrss_bytes / input_bytes if ours_ok and ours_e2e else float("nan")
    goals = {
        "e2e_pytrec_over_ours": (e2e_ratio, None if e2e_ratio != e2e_ratio else e2e_ratio >= 2),
        "eval_ranx_over_ours": (eval_ratio, None if eval_ratio != eval_ratio else eval_ratio >= 1),
        "rss_over_input": (rss_ratio, None if rss_ratio != rss_ratio else rss_ratio < 4),
    }

    print()
    print(
        f"data: {spec.queries:,} queries x {spec.docs:,} retrieved, {spec.judged} judged "
        f"(seed {spec.seed}); input {input_bytes / 2**20:,.1f} MiB"
    )
    print("\n".join(lines))
    print()
    if not big:
        print(
            f"end to end, pytrec_eval / ours: {_x(e2e_ratio)} "
            f"(goal >= {GOAL_E2E_SPEEDUP:g}x): {_verdict(goals['e2e_pytrec_over_ours'][1])}"
        )
        if py_e2e and ours_e2e and py_e2e.cpu_s and ours_e2e.cpu_s:
            # CPU time is steadier than wall time when other jobs share the cores.
            cpu_ratio = min(py_e2e.cpu_s) / min(ours_e2e.cpu_s)
            print(f"  (same ratio in CPU time, user + system: {cpu_ratio:.2f}x)")
        print(
            f"evaluation alone, ranx / ours: {_x(eval_ratio)} "
            f"(goal >= {GOAL_EVAL_SPEEDUP:g}x): {_verdict(goals['eval_ranx_over_ours'][1])}"
        )
    print(
        f"peak RSS / input, ours end to end: {_x(rss_ratio).rstrip('x')} "
        f"(goal < {GOAL_RSS_RATIO:g}): {_verdict(goals['rss_over_input'][1])}"
    )

    # Cross-check: the same means from every tool, or the timings compare different work.
    print()
    sources = {f"{t.tool} ({t.phase})": t.means for t in timings if t.means}
    for name in NAMES:
        row = "  ".join(f"{src}={m.get(name, float('nan')):.6f}" for src, m in sources.items())
        print(f"{name:12s} {row}")
    diffs: dict[str, float | None] = {}
    pairs = [
        ("ours", "evaluation alone", "pytrec_eval", "evaluation alone"),
        ("ours", "evaluation alone", "ranx", "evaluation alone"),
        ("pytrec_eval", "evaluation alone", "ranx", "evaluation alone"),
        # Our CLI prints 4 decimals: this one can only agree to 5e-5.
        ("ours", "end to end", "pytrec_eval", "end to end"),
    ]
    for a_tool, a_phase, b_tool, b_phase in pairs:
        a, b = by.get((a_tool, a_phase)), by.get((b_tool, b_phase))
        if a and b and a.means and b.means:
            key = f"{a_tool} {a_phase} vs {b_tool} {b_phase}"
            diffs[key] = max_abs_diff(a.means, b.means)
            shown = "missing measures" if diffs[key] is None else f"{diffs[key]:.3g}"
            print(f"max |difference of means|, {key}: {shown}")

    return {
        "spec": asdict(spec),
        "input_bytes": input_bytes,
        "machine": machine(),
        "versions": versions(),
        "timings": [asdict(t) | {"best": t.best, "median": t.median} for t in timings],
        "goals": {k: {"value": v, "met": ok} for k, (v, ok) in goals.items()},
        "max_abs_diff": diffs,
        "table": lines,
    }


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", action="store_true", help="100,000 x 1,000, our engine only")
    parser.add_argument("-n", "--queries", type=int)
    parser.add_argument("-d", "--docs", type=int)
    parser.add_argument("-j", "--judged", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, help="timings per tool (default 3, 1 with --big)")
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="first wait (up to SECONDS) for the 1-minute load average to drop below --quiet-below",
    )
    parser.add_argument("--quiet-below", type=float, default=1.0, metavar="LOAD")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("files", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        qrels_path, run_path = args.files
        worker_repeat = 3 if args.repeat is None else args.repeat
        print(json.dumps(WORKERS[args.worker](qrels_path, run_path, worker_repeat)))
        return 0

    base = BIG if args.big else gen_trec.Spec()
    spec = gen_trec.Spec(
        queries=args.queries or base.queries,
        docs=args.docs or base.docs,
        judged=args.judged or base.judged,
        seed=args.seed,
    )
    repeat = args.repeat or (1 if args.big else 3)
    qrels, run = gen_trec.default_paths(spec)
    if not (qrels.exists() and run.exists()):
        print(f"generating {qrels.name} and {run.name} ...", flush=True)
        # In a child process: Linux carries a process's peak RSS across fork and exec into
        # every child's ru_maxrss, so a parent grown by generating would inflate every
        # memory figure below (it did: 290 MiB reported for `import numpy, polars`).
        gen_cmd = [sys.executable, str(Path(gen_trec.__file__).resolve())]
        gen_cmd += ["-n", str(spec.queries), "-d", str(spec.docs), "-j", str(spec.judged)]
        gen_cmd += ["--seed", str(spec.seed)]
        elapsed, gen = _timed(lambda: subprocess.run(gen_cmd, cwd=REPO, check=False))
        if gen.returncode != 0:
            print("generation failed", file=sys.stderr)
            return 1
        print(f"generated in {elapsed:.1f} s", flush=True)
    input_bytes = qrels.stat().st_size + run.stat().st_size
    # Read both files once, untimed: every tool then starts from the page cache, and the first
    # timed run does not pay for the disk (seconds for the 4 GB of --big).
    for path in (qrels, run):
        with open(path, "rb", buffering=0) as fh:
            while fh.read(1 << 24):
                pass

    ours_cmd = [sys.executable, "-m", "metrics"]
    for measure in MEASURES:
        ours_cmd += ["-m", measure]
    ours_cmd += [str(qrels), str(run)]
    pytrec_cmd = [sys.executable, str(PYTREC_SCRIPT), str(qrels), str(run)]

    if args.wait_quiet:
        wait_for_quiet(args.wait_quiet, args.quiet_below)
    load_before = os.getloadavg()
    timings: list[Timing] = []

    def step(label: str, fn: Callable[[], Timing]) -> None:
        print(f"{label} ...", end=" ", flush=True)
        t = fn()
        timings.append(t)
        print(f"FAILED: {t.error}" if t.error else f"best {t.best:.3f} s", flush=True)

    cmds = {"ours": ours_cmd}
    if not args.big:
        cmds["pytrec_eval"] = pytrec_cmd
        # The floor of any Python tool built on numpy and polars: what is left for parsing and
        # evaluating once the interpreter has started and imported them.
        cmds[FLOOR] = [sys.executable, "-c", "import numpy, polars"]
    print("end to end:", flush=True)
    for t in end_to_end(cmds, repeat):
        timings.append(t)
        print(f"  {t.tool}: FAILED: {t.error}" if t.error else f"  {t.tool}: best {t.best:.3f} s")
    # --big: a single load and evaluation in the worker (each load of 100M lines is minutes).
    worker_repeat = 0 if args.big else repeat
    step("evaluation alone: ours", lambda: evaluation_alone("ours", qrels, run, worker_repeat))
    if not args.big:
        for tool in ("ranx", "pytrec_eval"):
            step(
                f"evaluation alone: {tool}", lambda t=tool: evaluation_alone(t, qrels, run, repeat)
            )

    results = report(spec, input_bytes, timings, args.big)
    load_after = os.getloadavg()
    print(
        f"\nload average (1, 5, 15 min) before: {_loads(load_before)}, after: {_loads(load_after)}"
        f" on {os.cpu_count()} cores"
    )
    if max(load_before[0], load_after[0]) > 0.5 * (os.cpu_count() or 1):
        print("WARNING: the machine was busy with other work; wall times are inflated.")
    parent = _peak_mib()
    print(f"this script's own peak RSS: {parent:,.0f} MiB (a child's figure cannot be below it)")
    floor = [t for t in timings if t.tool == FLOOR and t.maxrss_bytes]
    if floor and parent >= floor[0].maxrss_bytes / 2**20 - 1:
        print("WARNING: the children's peak RSS may be this script's own (inherited at exec).")
    results["load_average"] = {"before": load_before, "after": load_after}
    results["commands"] = {"ours": ours_cmd, "pytrec_eval": pytrec_cmd}
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    out = OUT_DIR / f"bench_metrics-{spec.stem}.json"
    out.write_text(json.dumps(results, indent=2, default=str))
    print(f"\nsaved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

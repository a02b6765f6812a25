#!/usr/bin/python3
"""Fitting and references over KernelBench levels 1-3 (issue 20's measurement).

For every problem file: one `evk_oracle.py ref` (seed 0, the run's defaults: float64 and
float32 forward, fx ops, eager float32 timing), in its own process with a time limit, as the
run's oracle client starts it. Records per task: outcome, wall and CPU seconds of the whole
reference, the fitting (constants changed, elements and FLOPs before and after). Problems are
visited round-robin over the levels, so a partial run still covers all three.

  nice -n 10 bench/kernelbench_refs.py [--root DIR] [--out FILE.jsonl] [--timeout CPU_S]
                                       [--max-elements N] [--max-gflop G]
  bench/kernelbench_refs.py --summary FILE.jsonl
  nice -n 10 bench/kernelbench_refs.py --fit-only [--out FILE.jsonl]

--lint runs the fairness lint (`evk_oracle.py lint`, what `evokernel tasks check` runs) on
every problem instead, one process each, and --lint-summary FILE.jsonl counts its findings.

--fit-only describes every problem in one oracle process (fitting on the meta device, nothing
allocated) instead: which problems load and fit, and how much the fitting shrank them.

The JSON Lines file is appended to and problems already in it are skipped, so the measurement
resumes. The summary prints counts, median and maximum time per reference and the median ratio
of fitted to original elements. Wall time on a shared machine includes waiting for the CPU;
CPU time (user + system of the oracle process) is the work itself.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "oracle", "evk_oracle.py")


def problems(root):
    levels = []
    for lv in ("level1", "level2", "level3"):
        d = os.path.join(root, lv)
        files = sorted(f for f in os.listdir(d) if f.endswith(".py"))
        files.sort(key=lambda f: int(f.split("_")[0]) if f.split("_")[0].isdigit() else 0)
        levels.append([os.path.join(d, f) for f in files])
    out = []
    for i in range(max(len(x) for x in levels)):
        out += [x[i] for x in levels if i < len(x)]
    return out


def one(path, a):
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="4294967296",
                   MALLOC_TRIM_THRESHOLD_="4294967296", OMP_NUM_THREADS="1")
        argv = ["/usr/bin/python3", ORACLE, "ref", "--seed", "0", "--out", tmp,
                "--max-elements", str(a.max_elements), "--max-gflop", str(a.max_gflop),
                "--threads", "1", "--timing-runs", "20", "--timeout", str(a.wall_limit), path]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        rec = {"task": os.path.basename(path)[:-3], "level": os.path.basename(os.path.dirname(path))}
        try:
            # The limit is on CPU seconds: on a machine shared by many, wall time is mostly
            # waiting; the wall limit only catches a process that never gets to run.
            def cpu_limit():
                resource.setrlimit(resource.RLIMIT_CPU, (int(a.timeout), int(a.timeout) + 5))
            p = subprocess.run(argv, env=env, capture_output=True, text=True,
                               timeout=a.wall_limit + 60, preexec_fn=cpu_limit)
            rec["rc"] = p.returncode
            last = (p.stdout.strip().splitlines() or ["{}"])[-1]
            try:
                rec.update(json.loads(last))
            except ValueError:
                rec["error"] = (p.stderr or p.stdout)[-400:]
        except subprocess.TimeoutExpired:
            rec.update(rc=124, ok=False, error=f"killed after {a.wall_limit + 60} s wall")
        if rec.get("rc") == -24:  # SIGXCPU
            rec.update(ok=False, error=f"ran past {a.timeout} CPU seconds")
        rec["wall_s"] = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rec["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        meta = os.path.join(tmp, "meta.json")
        if os.path.exists(meta):
            m = json.load(open(meta))
            rec.update(fitted=m["fitted"], fit=m["fit"], ref_s=m.get("ref_s"),
                       eager_ms=m["eager"]["median_ms"], flops=m["flops"],
                       f32_vs_f64=m["f32_vs_f64"])
        rec.pop("out", None)
        return rec


def summary(path):
    recs = {}
    for line in open(path):
        r = json.loads(line)
        recs[(r["level"], r["task"])] = r
    rs = list(recs.values())
    ok = [r for r in rs if r.get("ok")]
    print(f"problems measured: {len(rs)}; reference made: {len(ok)}; failed: {len(rs) - len(ok)}")
    for lv in ("level1", "level2", "level3"):
        n = [r for r in rs if r["level"] == lv]
        print(f"  {lv}: {len(n)} measured, {sum(1 for r in n if r.get('ok'))} with a reference")
    for key in ("wall_s", "cpu_s"):
        v = sorted(r[key] for r in ok)
        if v:
            print(f"time per reference ({key}): median {statistics.median(v):.1f} s, "
                  f"IQR {statistics.quantiles(v, n=4)[2] - statistics.quantiles(v, n=4)[0]:.1f} s, "
                  f"max {v[-1]:.1f} s ({max(ok, key=lambda r: r[key])['task']})")
    fitted = [r for r in ok if r.get("fitted")]
    ratios = [r["fit"]["elements"][1] / r["fit"]["elements"][0] for r in ok
              if r.get("fit") and r["fit"]["elements"][0] > 0]
    fr = [r["fit"]["flops"][1] / r["fit"]["flops"][0] for r in ok
          if r.get("fit") and r["fit"]["flops"][0] > 0]
    print(f"fitted: {len(fitted)} of {len(ok)}; median fitted/original elements "
          f"{statistics.median(ratios) if ratios else 0:.3g} over all, "
          f"{statistics.median([x for x in ratios if x < 1]) if any(x < 1 for x in ratios) else 1:.3g}"
          f" over the fitted; median fitted/original FLOPs {statistics.median(fr) if fr else 0:.3g}")
    over = [r["task"] for r in ok if r.get("fit") and not r["fit"].get("within_bounds", True)]
    print(f"left over the bounds (no constant could shrink): {len(over)}: {', '.join(over)}")
    slow = [f"{r['task']} ({r['wall_s']:.0f} s wall, {r['cpu_s']:.0f} s CPU)" for r in ok
            if r["cpu_s"] > 60]
    print(f"references over 60 CPU seconds: {len(slow)}: {', '.join(slow)}")
    for r in rs:
        if not r.get("ok"):
            print(f"  FAILED {r['level']}/{r['task']}: {str(r.get('error', ''))[:200]}")


def fit_only(a):
    argv = ["/usr/bin/python3", ORACLE, "describe", "--max-elements", str(a.max_elements),
            "--max-gflop", str(a.max_gflop), "--timeout", str(a.timeout)] + problems(a.root)
    t0 = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True)
    rs = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    with open(a.out, "w") as f:
        for r in rs:
            f.write(json.dumps(r) + "\n")
    ok = [r for r in rs if r.get("ok")]
    ratios = [r["fit"]["elements"][1] / r["fit"]["elements"][0] for r in ok
              if r["fit"]["elements"][0] > 0]
    shrunk = [x for x in ratios if x < 1]
    print(f"described {len(rs)} problems in {time.monotonic() - t0:.0f} s: {len(ok)} load and "
          f"fit, {len(rs) - len(ok)} broken; {sum(1 for r in ok if r['fitted'])} fitted; "
          f"median fitted/original elements {statistics.median(ratios):.3g} over all, "
          f"{statistics.median(shrunk) if shrunk else 1:.3g} over the fitted")
    over = [r["id"] for r in ok if not r["fit"].get("within_bounds", True)]
    print(f"left over the bounds: {len(over)}: {', '.join(over)}")
    for r in rs:
        if not r.get("ok"):
            print(f"  BROKEN {r['id']}: {r.get('error', '')[:200]}")


def lint_all(a):
    done = set()
    if os.path.exists(a.out):
        done = {json.loads(x)["path"] for x in open(a.out)}
    with open(a.out, "a") as f:
        for path in problems(a.root):
            if path in done:
                continue
            argv = ["/usr/bin/python3", ORACLE, "lint", "--max-elements", str(a.max_elements),
                    "--max-gflop", str(a.max_gflop), "--timeout", str(a.wall_limit), path]

            def cpu_limit():
                resource.setrlimit(resource.RLIMIT_CPU, (int(a.timeout), int(a.timeout) + 5))
            try:
                p = subprocess.run(argv, capture_output=True, text=True, preexec_fn=cpu_limit,
                                   env=dict(os.environ, OMP_NUM_THREADS="1"),
                                   timeout=a.wall_limit + 60)
                lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
                r = json.loads(lines[-1]) if lines else {
                    "ok": False, "error": f"exit {p.returncode} (past {a.timeout} CPU s?)"}
            except subprocess.TimeoutExpired:
                r = {"ok": False, "error": "wall limit"}
            r["path"] = path
            r["level"] = os.path.basename(os.path.dirname(path))
            f.write(json.dumps(r) + "\n")
            f.flush()
            print(f"{r['level']}/{os.path.basename(path)}: "
                  f"{[x['check'] for x in r.get('findings', [])] if r.get('ok') else r.get('error')}",
                  flush=True)
    lint_summary(a.out)


def lint_summary(path):
    rs = [json.loads(x) for x in open(path)]
    ok = [r for r in rs if r.get("ok")]
    deg = [r for r in ok if r["findings"]]
    print(f"linted {len(rs)} problems: {len(ok)} checked, {len(deg)} degenerate, "
          f"{len(rs) - len(ok)} not checked")
    counts = {}
    for r in deg:
        for c in sorted({x["check"] for x in r["findings"]}):
            counts.setdefault(c, []).append(f"{r['level']}/{r['id']}")
    for c, ids in sorted(counts.items(), key=lambda kv: -len(kv[1])):
        print(f"  {c}: {len(ids)}: {', '.join(ids)}")
    for r in rs:
        if not r.get("ok"):
            print(f"  NOT CHECKED {r['level']}/{os.path.basename(r['path'])}: {r.get('error', '')[:160]}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="/work/shared/kernelbench")
    p.add_argument("--out", default="kernelbench_refs.jsonl")
    p.add_argument("--timeout", type=float, default=120, help="CPU seconds per reference")
    p.add_argument("--wall-limit", type=float, default=1800, help="wall seconds per reference")
    p.add_argument("--max-elements", type=int, default=16777216)
    p.add_argument("--max-gflop", type=float, default=4)
    p.add_argument("--summary")
    p.add_argument("--fit-only", action="store_true")
    p.add_argument("--lint", action="store_true")
    p.add_argument("--lint-summary")
    a = p.parse_args()
    if a.lint_summary:
        lint_summary(a.lint_summary)
        return 0
    if a.lint:
        lint_all(a)
        return 0
    if a.fit_only:
        fit_only(a)
        return 0
    if a.summary:
        summary(a.summary)
        return 0
    done = set()
    if os.path.exists(a.out):
        for line in open(a.out):
            r = json.loads(line)
            done.add((r["level"], r["task"]))
    with open(a.out, "a") as f:
        for path in problems(a.root):
            key = (os.path.basename(os.path.dirname(path)), os.path.basename(path)[:-3])
            if key in done:
                continue
            rec = one(path, a)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{rec['level']}/{rec['task']}: {'ok' if rec.get('ok') else 'FAILED'} "
                  f"{rec['wall_s']:.1f} s wall {rec['cpu_s']:.1f} s CPU", flush=True)
    summary(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The table of the built-in suites: task, level, operators, input elements, FLOPs, PyTorch
eager float32 latency on this machine (1 thread: CPU time and wall-clock; all threads:
wall-clock).

  /usr/bin/python3 tests/python/suite_table.py [--runs 20] [--write suites/README.md] [TASK.py ...]

Without --write the Markdown table goes to stdout. With --write it replaces the text between
`<!-- table:begin -->` and `<!-- table:end -->` in that file. Timing follows the oracle
(oracle/evk_oracle.py: warm-up, median of --runs, glibc told to keep freed memory), so the
wall-clock numbers are the baseline the verifier compares candidates against on a quiet
machine. On a loaded machine the wall-clock columns grow with the load; the CPU-time column
does not, and is the one the suites are sized by (1 to 200 ms).
"""
import argparse
import os
import platform
import re
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "oracle"))
SUITES = ("level1", "level2", "level3", "attention")
BEGIN, END = "<!-- table:begin -->", "<!-- table:end -->"


def all_tasks():
    out = []
    for s in SUITES:
        d = os.path.join(ROOT, "suites", s)
        if os.path.isdir(d):
            out += sorted(os.path.join(d, f) for f in os.listdir(d)
                          if f.endswith(".py") and not f.startswith("_"))
    return out


def op_names(ops, limit=7):
    """Distinct operators of the fx op list, in order of first use."""
    names = []
    for op in ops:
        if op["kind"] not in ("call_module", "call_function", "call_method"):
            continue
        n = op["op"]
        n = {"getitem": None, "size": None, "view": None, "reshape": None, "transpose": None,
             "contiguous": None, "unsqueeze": None, "squeeze": None, "flatten": None,
             "unflatten": None, "chunk": None, "getattr": None, "expand": None,
             "add": "add", "iadd": "add", "mul": "mul", "truediv": "div", "sub": "sub",
             "neg": "neg", "matmul": "matmul", "pow": "pow"}.get(n, n)
        if n and n not in names:
            names.append(n)
    if len(names) > limit:
        names = names[:limit] + ["..."]
    return ", ".join(names)


def timed_runs(model, inputs, runs):
    """Median wall-clock and thread-CPU milliseconds of `runs` calls on one thread, after the
    oracle's warm-up. CPU time does not count the time the process waits for a core, so it
    stays meaningful on a loaded machine; the oracle itself reports wall-clock time."""
    import torch
    torch.set_num_threads(1)
    wall, cpu = [], []
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        for _ in range(runs):
            w0, c0 = time.perf_counter(), time.thread_time()
            model(*inputs)
            cpu.append((time.thread_time() - c0) * 1e3)
            wall.append((time.perf_counter() - w0) * 1e3)
    return statistics.median(wall), statistics.median(cpu)


def measure(path, runs, threads_all):
    import torch
    import evk_oracle
    mod = evk_oracle.load_module(path, 60)
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).eval()
    torch.manual_seed(1_000_003)
    inputs = mod.get_inputs()
    torch.set_num_threads(1)
    ops = evk_oracle.fx_ops(model, inputs)
    wall1, cpu1 = timed_runs(model, inputs, runs)
    row = {
        "task": os.path.splitext(os.path.basename(path))[0],
        "level": os.path.basename(os.path.dirname(path)),
        "ops": op_names(ops),
        "elements": evk_oracle.count_input_elements(mod),
        "flops": sum(op.get("flops", 0) for op in ops),
        "cpu1": cpu1,
        "ms1": wall1,
        "msN": evk_oracle.eager_latency(model, inputs, runs, threads_all)["median_ms"],
    }
    torch.set_num_threads(1)
    return row


def human(n):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g}{unit}"
    return str(n)


def main():
    if os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:  # the oracle's fair baseline
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="4294967296",
                   MALLOC_TRIM_THRESHOLD_="4294967296")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--write", help="file whose table section to replace")
    p.add_argument("tasks", nargs="*")
    a = p.parse_args()
    threads_all = os.cpu_count() or 1
    rows = []
    load_before = os.getloadavg()[0]
    for t in a.tasks or all_tasks():
        try:
            rows.append(measure(os.path.abspath(t), a.runs, threads_all))
        except Exception as e:
            print(f"{t}: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        r = rows[-1]
        print(f"{r['level']}/{r['task']}: {r['cpu1']:.2f} ms CPU, {r['ms1']:.2f} ms wall",
              file=sys.stderr, flush=True)
    lines = [f"| task | level | operators | input elements | FLOPs | eager ms, 1 thread, CPU | "
             f"eager ms, 1 thread, wall | eager ms, {threads_all} threads, wall |",
             "|---|---|---|--:|--:|--:|--:|--:|"]
    for r in rows:
        lines.append(f"| {r['task']} | {r['level']} | {r['ops']} | {r['elements']:,} | "
                     f"{human(r['flops'])} | {r['cpu1']:.2f} | {r['ms1']:.2f} | {r['msN']:.2f} |")
    counts = {s: sum(1 for r in rows if r["level"] == s) for s in SUITES}
    ms = [r["cpu1"] for r in rows]
    lines += ["", f"{len(rows)} tasks ({', '.join(f'{s}: {n}' for s, n in counts.items())}); "
              f"eager latency, 1 thread, CPU time, from {min(ms):.2f} ms to {max(ms):.2f} ms. "
              f"Measured "
              f"{time.strftime('%Y-%m-%d')} on {platform.machine()} with {threads_all} cores, "
              f"PyTorch {__import__('torch').__version__}, median of {a.runs} runs; load average "
              f"{load_before:.1f} before and {os.getloadavg()[0]:.1f} after."]
    table = "\n".join(lines)
    if a.write:
        text = open(a.write, encoding="utf-8").read()
        if BEGIN not in text or END not in text:
            print(f"{a.write} has no {BEGIN} ... {END} section", file=sys.stderr)
            return 1
        text = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END),
                      lambda m: f"{BEGIN}\n{table}\n{END}", text, flags=re.S)
        with open(a.write, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

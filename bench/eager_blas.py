#!/usr/bin/python3
"""PyTorch eager on the reference BLAS against OpenBLAS, on GEMM tasks (issue 35's measurement).

Every figure is the eager float32 latency a run's verdicts divide by: one `evk_oracle.py ref`
per (task, BLAS, round), started as the oracle client starts it (src/tasks/oracle.cpp: glibc
told to keep freed memory, torch, OpenMP and the BLAS on --threads threads, pinned to as many
CPUs), at the run's default fitting. The BLAS is chosen per process by putting the folder of
its libblas.so.3 first on LD_LIBRARY_PATH, so both are measured in the same session whatever
the system's alternative points at; each reference records the library its sgemm_ actually
bound to (meta.json "baseline"), and a process that bound another one than asked is an error.
The BLAS alternate within each round, so load on a shared machine falls on both alike.

  nice -n 10 bench/eager_blas.py [--rounds 2] [--threads 1] [--cpus 1]
                                 [--kernelbench /work/shared/kernelbench]

Prints, per task: FLOPs at the fitted size; per BLAS the median over rounds of the eager
forward's CPU time per call (min-max over rounds), which a busy machine does not inflate, and
its GFLOP/s; the ratio reference / OpenBLAS (how much every "x eager" on that task was inflated
before the change); and the same for the wall-clock medians verdicts divide by, which on a
shared machine carry its load.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
ORACLE = os.path.join(ROOT, "oracle", "evk_oracle.py")
MULTIARCH = "/usr/lib/x86_64-linux-gnu"
BLAS = {  # name -> folder holding its libblas.so.3 (Debian's packages)
    "reference": os.path.join(MULTIARCH, "blas"),
    "openblas": os.path.join(MULTIARCH, "openblas-pthread"),
}
BUILTIN = [("demo", os.path.join(ROOT, "suites", "level1", "matmul_square.py")),
           ("demo", os.path.join(ROOT, "suites", "level2", "gemm_relu_scale.py"))]
KERNELBENCH = ["12_Gemm_Multiply_LeakyReLU", "14_Gemm_Divide_Sum_Scaling", "76_Gemm_Add_ReLU"]


def one(task, blas_dir, a):
    with tempfile.TemporaryDirectory() as tmp:
        t = str(a.threads)
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="4294967296",
                   MALLOC_TRIM_THRESHOLD_="4294967296", OMP_NUM_THREADS=t,
                   OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, LD_LIBRARY_PATH=blas_dir)
        argv = ["/usr/bin/python3", ORACLE, "ref", "--seed", "0", "--out", tmp,
                "--max-elements", str(a.max_elements), "--max-gflop", str(a.max_gflop),
                "--threads", t, "--timing-runs", "20", "--timeout", "600", task]
        cpus = [int(c) for c in a.cpus.split(",")]
        p = subprocess.run(argv, env=env, capture_output=True, text=True,
                           preexec_fn=lambda: os.sched_setaffinity(0, cpus))
        if p.returncode != 0:
            raise RuntimeError(f"{task}: {p.stdout[-300:]} {p.stderr[-300:]}")
        m = json.load(open(os.path.join(tmp, "meta.json")))
        lib = m["baseline"]["blas_library"]
        if not os.path.realpath(lib).startswith(os.path.realpath(blas_dir) + os.sep):
            raise RuntimeError(f"{task}: asked for {blas_dir}, sgemm_ bound to {lib}")
        return m["eager"]["median_ms"], m["eager"]["cpu_median_ms"], m["flops"], m["baseline"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--cpus", default="1", help="CPUs to pin to, comma-separated")
    ap.add_argument("--max-elements", type=int, default=16777216)  # the run's defaults
    ap.add_argument("--max-gflop", type=float, default=4)
    ap.add_argument("--kernelbench", default="/work/shared/kernelbench")
    a = ap.parse_args()
    for name, d in BLAS.items():
        if not os.path.exists(os.path.join(d, "libblas.so.3")):
            sys.exit(f"no {name} BLAS in {d}: apt-get install libblas3 libopenblas0-pthread")
    tasks = list(BUILTIN)
    for k in KERNELBENCH:
        f = os.path.join(a.kernelbench, "level2", k + ".py")
        if os.path.exists(f):
            tasks.append(("KernelBench level2", f))
    wall = {(t, b): [] for _, t in tasks for b in BLAS}
    cpu = {(t, b): [] for _, t in tasks for b in BLAS}
    flops, seen = {}, {}
    t0 = time.monotonic()
    for r in range(a.rounds):
        for _, t in tasks:
            order = list(BLAS) if r % 2 == 0 else list(reversed(BLAS))
            for b in order:
                ms, cpu_ms, fl, base = one(t, BLAS[b], a)
                wall[(t, b)].append(ms)
                cpu[(t, b)].append(cpu_ms)
                flops[t] = fl
                seen[b] = f"{base['blas_name']} ({base['blas_library']})"
    print(f"eager float32, {a.threads} thread(s) pinned to CPU {a.cpus}, {a.rounds} rounds, "
          f"load average {os.getloadavg()[0]:.1f}, {time.monotonic() - t0:.0f} s")
    print(f"torch {base['torch_version']}, ATen {base['cpu_capability']}")
    for b, s in seen.items():
        print(f"  {b}: {s}")
    med = lambda v: statistics.median(v)  # noqa: E731
    print("\nCPU ms per forward: the median over rounds of each reference's median (min-max over "
          "rounds); wall: the same of the wall-clock medians verdicts divide by")
    print("\n| suite | task | GFLOP | reference CPU ms | GFLOP/s | OpenBLAS CPU ms | GFLOP/s "
          "| reference / OpenBLAS, CPU | wall ms reference / OpenBLAS | ratio, wall |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for suite, t in tasks:
        g = flops[t] / 1e9
        cells = []
        for b in BLAS:
            v = cpu[(t, b)]
            cells += [f"{med(v):.2f} ({min(v):.2f}-{max(v):.2f})", f"{g / med(v) * 1e3:.1f}"]
        rc = med(cpu[(t, "reference")]) / med(cpu[(t, "openblas")])
        wr, wo = med(wall[(t, "reference")]), med(wall[(t, "openblas")])
        print(f"| {suite} | {os.path.basename(t)[:-3]} | {g:.3f} | {' | '.join(cells)} | "
              f"{rc:.1f}x | {wr:.1f} / {wo:.1f} | {wr / wo:.1f}x |")


if __name__ == "__main__":
    main()

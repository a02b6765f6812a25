#!/usr/bin/python3
"""The eager baseline as the oracle's process runs it (oracle/evk_oracle.py `baseline`, and
`ref`'s meta.json "baseline"), against the real libraries: with the folder of Debian's
reference BLAS first on LD_LIBRARY_PATH torch's sgemm_ binds to it and the oracle says so, with
OpenBLAS's it says OpenBLAS; the GEMM rate tells them apart by a margin noise cannot reach (CPU
time, both measured in this run); the BLAS gets the thread count it is given; the CPUs the
process may run on are recorded. Exits 1 on any failure, 0 with a note when either library is
not installed (scripts/setup installs OpenBLAS; libblas3 comes with python3-torch).

  /usr/bin/python3 tests/python/baseline_test.py
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORACLE = os.path.join(ROOT, "oracle", "evk_oracle.py")
MULTIARCH = "/usr/lib/x86_64-linux-gnu"
REFERENCE = os.path.join(MULTIARCH, "blas")
OPENBLAS = os.path.join(MULTIARCH, "openblas-pthread")

MATMUL = '''"""case"""
import torch
import torch.nn as nn
N = 64
class Model(nn.Module):
    def forward(self, a, b):
        return a @ b
def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]
def get_init_inputs():
    return []
'''


def oracle(args, blas_dir, threads=1, cpus=None):
    env = dict(os.environ, LD_LIBRARY_PATH=blas_dir, OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    pre = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    p = subprocess.run(["/usr/bin/python3", ORACLE] + args, env=env, capture_output=True,
                       text=True, timeout=600, preexec_fn=pre)
    if p.returncode != 0:
        raise RuntimeError(f"oracle {args[0]} failed: {p.stdout[-400:]} {p.stderr[-400:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    for d in (REFERENCE, OPENBLAS):
        if not os.path.exists(os.path.join(d, "libblas.so.3")):
            print(f"SKIP: {d}/libblas.so.3 is absent (apt-get install libblas3 "
                  "libopenblas0-pthread)")
            return 0
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    cpu = sorted(os.sched_getaffinity(0))[-1]
    ref = oracle(["baseline", "--threads", "1"], REFERENCE, cpus=[cpu])
    opb = oracle(["baseline", "--threads", "1"], OPENBLAS, cpus=[cpu])
    expect(ref["blas_name"] == "reference BLAS (netlib)", f"reference named {ref['blas_name']}")
    expect(ref["blas_library"].startswith(REFERENCE + "/"), f"reference at {ref['blas_library']}")
    expect(opb["blas_name"].startswith("OpenBLAS "), f"OpenBLAS named {opb['blas_name']}")
    expect(opb["blas_library"].startswith(OPENBLAS + "/"), f"OpenBLAS at {opb['blas_library']}")
    for b in (ref, opb):
        expect(b["cpus"] == [cpu], f"pinned to {cpu}, recorded {b['cpus']}")
        expect(b["threads"] == 1 and b["blas_threads"] == 1, f"threads {b}")
        expect(b["cpu_capability"] not in ("", "unknown"), f"capability {b['cpu_capability']}")
        expect(b["torch_version"] and b["python"], f"torch/python {b}")
    # Measured 18-30x apart on one pinned core (README, "A fair baseline"); by CPU time, which
    # a busy machine does not inflate, 4x is far inside that.
    r, o = ref["gemm"]["gflops_cpu"], opb["gemm"]["gflops_cpu"]
    expect(o > 4 * r, f"OpenBLAS's GEMM {o:.1f} GFLOP/s is not 4x the reference's {r:.1f}")

    # The BLAS gets the threads it is given, whatever the environment said.
    two = oracle(["baseline", "--threads", "2", "--gemm", "128"], OPENBLAS, threads=1)
    expect(two["threads"] == 2 and two["blas_threads"] == 2, f"2 threads: {two}")

    # A reference records the baseline it was timed on.
    with tempfile.TemporaryDirectory() as tmp:
        task = os.path.join(tmp, "matmul_small.py")
        with open(task, "w") as f:
            f.write(MATMUL)
        for blas_dir, name in ((REFERENCE, "reference BLAS (netlib)"), (OPENBLAS, "OpenBLAS")):
            out = os.path.join(tmp, os.path.basename(blas_dir))
            oracle(["ref", "--seed", "0", "--out", out, "--timing-runs", "3", task], blas_dir)
            meta = json.load(open(os.path.join(out, "meta.json")))
            b = meta.get("baseline", {})
            expect(b.get("blas_name", "").startswith(name), f"ref under {name}: {b}")
            expect(b.get("blas_library", "").startswith(blas_dir + "/"), f"ref library {b}")
    print(f"reference {r:.1f} GFLOP/s, OpenBLAS {o:.1f} GFLOP/s (CPU time, 1 thread)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

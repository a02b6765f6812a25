#!/usr/bin/python3
"""Fairness check of the built-in operator suites (suites/level1, level2, level3, attention).

For every task and two seeds (0 and 1) it produces the reference through oracle/evk_oracle.py
(the float32 reference computed from the float64 forward), recomputes the float32 forward with
the same seeding, and checks, with the verifier's criterion (allclose |a-b| <= atol + rtol*|b|
AND ||a-b|| / ||b|| <= 1e-2, at the task's ATOL/RTOL or 1e-2):

  * the float32 forward agrees with the float64 reference (so the tolerance is meaningful);
  * an all-zero output fails, by a margin (>= 1% of elements outside tolerance or a
    relative error norm >= 0.05; the same margin applies to the next three);
  * a copy of the first input fails (trivially when the shapes differ);
  * a constant output (the mean of the reference) fails: the output is not near-constant;
  * the seed-0 output fails as an answer for seed 1: outputs vary between seeds, and the
    seed-0 model on the seed-1 inputs also gives a clearly different output (the output
    depends on the inputs, not only on the parameters);
  * outputs are finite, the inputs fit in 2^24 elements without shape fitting, the task has a
    one-line docstring, and the forward traces with torch.fx (the op list shown to the LLM).

Integer outputs (argmax, ...) must match exactly. Prints one line per failure and a final line
`N passed, M failed`; exits 1 on any failure.

  /usr/bin/python3 tests/python/check_suites.py [-j 2] [-v] [TASK.py ...]
  /usr/bin/python3 tests/python/check_suites.py --selftest   # unfair tasks must be rejected
"""
import argparse
import json
import math
import multiprocessing
import os
import struct
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "oracle"))

import torch  # noqa: E402

import evk_oracle  # noqa: E402

SUITES = ("level1", "level2", "level3", "attention")
MINIMUM = {"level1": 40, "level2": 30, "level3": 8, "attention": 15}
MAX_ELEMENTS = 1 << 24
REL_NORM_BOUND = evk_oracle.LINT_REL_NORM_BOUND
DEFAULT_TOL = evk_oracle.LINT_DEFAULT_TOL
SEEDS = (0, 1)
ST_DTYPES = {"F32": torch.float32, "F64": torch.float64, "I32": torch.int32,
             "I64": torch.int64, "U8": torch.uint8, "BOOL": torch.uint8, "F16": torch.float16}


def all_tasks():
    out = []
    for s in SUITES:
        d = os.path.join(ROOT, "suites", s)
        if os.path.isdir(d):
            out += sorted(os.path.join(d, f) for f in os.listdir(d)
                          if f.endswith(".py") and not f.startswith("_"))
    return out


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        buf = bytearray(data[base + a:base + b])
        dt = ST_DTYPES[e["dtype"]]
        t = torch.frombuffer(buf, dtype=dt) if buf else torch.empty(0, dtype=dt)
        out[name] = t.reshape(e["shape"])
    return out


# The verifier's criterion and the margin a wrong answer must miss by: the oracle's lint
# (`evokernel tasks check`) and this test share them.
close = evk_oracle.lint_close
wrongness = evk_oracle.lint_wrongness


def f32_forward(path, seed, input_seed=None):
    """The float32 forward, seeded as the oracle seeds it (inputs from input_seed if given)."""
    mod = evk_oracle.load_module(path, 60)
    torch.manual_seed(seed)
    model = mod.Model(*mod.get_init_inputs()).eval()
    torch.manual_seed((seed if input_seed is None else input_seed) + 1_000_003)
    inputs = mod.get_inputs()
    with torch.no_grad():
        y = model(*inputs)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    return inputs, ys, mod


def _no_timing(model, inputs, runs, threads):
    return {"median_ms": 0.0, "iqr_ms": 0.0, "runs": 0, "threads": threads,
            "allocator_reuse": False}


def check_task(path):
    """Returns (task id, [failure reasons], info dict)."""
    torch.set_num_threads(1)
    evk_oracle.eager_latency = _no_timing  # timing is suite_table.py's job, not this test's
    level = os.path.basename(os.path.dirname(path))
    tid = level + "/" + os.path.splitext(os.path.basename(path))[0]
    fails = []
    info = {"seconds": 0.0}
    t0 = time.perf_counter()
    refs = {}
    weakest = {}

    def note(check, margin):
        weakest[check] = min(margin, weakest.get(check, math.inf))
    try:
        for seed in SEEDS:
            with tempfile.TemporaryDirectory(prefix="evk-check-") as tmp:
                meta = evk_oracle.reference(path, seed, tmp, MAX_ELEMENTS, 1, 1, 300)
                ts = read_safetensors(os.path.join(tmp, "ref.safetensors"))
            inputs, y32, mod = f32_forward(path, seed)
            atol = getattr(mod, "ATOL", DEFAULT_TOL)
            rtol = getattr(mod, "RTOL", DEFAULT_TOL)
            outs = [ts[f"out.{i}"] for i in range(len(meta["outputs"]))]
            refs[seed] = outs
            if seed == SEEDS[0]:
                doc = (mod.__doc__ or "").strip()
                if not doc or "\n" in doc:
                    fails.append("needs a one-line module docstring")
                if meta["fitted"]:
                    fails.append(f"inputs exceed 2^24 elements: fitted {meta['fitted']}")
                if meta["input_elements"] > MAX_ELEMENTS:
                    fails.append(f"{meta['input_elements']} input elements > 2^24")
                if not meta["fx_ops"]:
                    fails.append("forward does not trace with torch.fx")
                info.update(input_elements=meta["input_elements"], flops=meta["flops"],
                            f32_vs_f64=meta["f32_vs_f64"])
            x0 = evk_oracle.as_tensor(inputs[0], "input 0")
            if not torch.equal(x0.reshape(-1), ts["in.0"].reshape(-1).to(x0.dtype)):
                fails.append(f"seed {seed}: inputs are not reproducible from the seed")
            if len(y32) != len(outs):
                fails.append(f"seed {seed}: {len(y32)} float32 outputs, {len(outs)} references")
                continue
            first = ts["in.0"]
            for i, (a, b) in enumerate(zip(y32, outs)):
                o = f"seed {seed} out.{i}"
                if b.is_floating_point() and not bool(torch.isfinite(b).all()):
                    fails.append(f"{o}: reference is not finite")
                    continue
                ok, why = close(a, b, atol, rtol)
                if b.is_floating_point() and b.numel():
                    d = (a.to(b.dtype) - b).abs_()
                    used = max(float((d / b.abs().mul_(rtol).add_(atol)).max()),
                               float(torch.linalg.vector_norm(d)) /
                               max(float(torch.linalg.vector_norm(b)), 1e-30) / REL_NORM_BOUND)
                    info["f32_error_of_tolerance"] = max(used, info.get("f32_error_of_tolerance", 0))
                if not ok:
                    d = (a.double() - b.double()).abs()
                    fails.append(f"{o}: float32 disagrees with float64 ({why}; max abs "
                                 f"{float(d.max()):.3g})")
                bad, why, m = wrongness(torch.zeros_like(b), b, atol, rtol)
                note("zeros", m)
                if not bad:
                    fails.append(f"{o}: an all-zero output passes or nearly ({why})")
                if tuple(first.shape) == tuple(b.shape):
                    bad, why, m = wrongness(first, b, atol, rtol)
                    note("input copy", m)
                    if not bad:
                        fails.append(f"{o}: a copy of the first input passes or nearly ({why})")
                if b.numel() > 1:
                    if b.is_floating_point():
                        c = torch.full_like(b, float(b.mean()))
                    else:
                        c = torch.full_like(b, int(torch.mode(b.flatten()).values))
                    bad, why, m = wrongness(c, b, atol, rtol)
                    note("constant", m)
                    if not bad:
                        fails.append(f"{o}: near-constant: its mean passes or nearly ({why})")
        atol = getattr(mod, "ATOL", DEFAULT_TOL)
        rtol = getattr(mod, "RTOL", DEFAULT_TOL)
        for i, (x, y) in enumerate(zip(refs[SEEDS[0]], refs[SEEDS[1]])):
            bad, why, m = wrongness(x, y, atol, rtol)
            note("other seed", m)
            if not bad:
                fails.append(f"out.{i}: the seed-{SEEDS[0]} output passes or nearly for seed "
                             f"{SEEDS[1]} ({why})")
        # The output must depend on the inputs, not only on the parameters: the seed-0 model
        # given the seed-1 inputs must not reproduce the seed-0 output.
        _, ymix, _ = f32_forward(path, SEEDS[0], input_seed=SEEDS[1])
        for i, (x, y) in enumerate(zip(ymix, refs[SEEDS[0]])):
            bad, why, m = wrongness(x, y, atol, rtol)
            note("other inputs", m)
            if not bad:
                fails.append(f"out.{i}: barely depends on the inputs: other inputs give nearly "
                             f"the same output ({why})")
    except Exception as e:  # a broken task is a failure, not a crash of the test
        fails.append(f"{type(e).__name__}: {e}")
    info["seconds"] = time.perf_counter() - t0
    info["weakest"] = min(weakest.items(), key=lambda kv: kv[1]) if weakest else None
    return tid, fails, info


# Unfair tasks the check must reject (--selftest), each with the failure it must report.
UNFAIR = {
    "scalar_loss": ("seed-0 output passes", """
class Model(nn.Module):
    def forward(self, a, b):
        return torch.mean((a - b) ** 2)   # about 2.0 for every seed
def get_inputs():
    return [torch.randn(N, 256), torch.randn(N, 256)]
"""),
    "identity_batchnorm": ("copy of the first input passes", """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(256)     # default running statistics: an identity in eval
    def forward(self, x):
        return self.bn(x)
def get_inputs():
    return [torch.randn(N, 256)]
"""),
    "input_independent": ("barely depends on the inputs", """
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(256))
    def forward(self, x):
        return self.w + 1e-4 * x
def get_inputs():
    return [torch.randn(N, 256)]
"""),
    "cancellation": ("float32 disagrees with float64", """
class Model(nn.Module):
    def forward(self, x):
        return 2.0 * ((x + 1e6) - 1e6)   # float32 keeps about 2 digits of x
def get_inputs():
    return [torch.randn(N, 256)]
"""),
    "tiny_softmax": ("near-constant", """
class Model(nn.Module):
    def forward(self, x):
        return torch.softmax(0.001 * x, dim=-1)   # all about 1/256
def get_inputs():
    return [torch.randn(N, 256)]
"""),
}


def selftest(jobs):
    """Runs the check on the UNFAIR tasks: each must fail with its expected reason."""
    ok = True
    with tempfile.TemporaryDirectory(prefix="evk-unfair-") as d:
        os.makedirs(os.path.join(d, "level1"))
        paths = {}
        for name, (_, body) in UNFAIR.items():
            paths[name] = os.path.join(d, "level1", name + ".py")
            with open(paths[name], "w") as f:
                f.write(f'"""Unfair on purpose: {name}."""\nimport torch\nimport torch.nn as nn\n'
                        f"N = 512\n{body}\ndef get_init_inputs():\n    return []\n")
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(max(1, jobs)) as pool:
            results = pool.map(check_task, [paths[n] for n in UNFAIR])
    for name, (tid, fails, _) in zip(UNFAIR, results):
        expected = UNFAIR[name][0]
        if any(expected in f for f in fails):
            print(f"ok   {name}: rejected ({expected})")
        else:
            ok = False
            print(f"FAIL {name}: expected a failure '{expected}', got {fails or 'none'}")
    n_ok = sum(1 for name, (_, fails, _) in zip(UNFAIR, results)
               if any(UNFAIR[name][0] in f for f in fails))
    print(f"{n_ok} passed, {len(UNFAIR) - n_ok} failed")
    return 0 if ok else 1


def main():
    # Keep freed memory in the process (as the oracle's timing does): the checks allocate and
    # free large tensors, and returning them to the kernel each time costs page faults.
    if os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:
        env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="4294967296",
                   MALLOC_TRIM_THRESHOLD_="4294967296", OMP_NUM_THREADS="1")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    p = argparse.ArgumentParser()
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--selftest", action="store_true",
                   help="check that deliberately unfair tasks are rejected")
    p.add_argument("tasks", nargs="*")
    a = p.parse_args()
    if a.selftest:
        return selftest(a.jobs)
    t0 = time.perf_counter()
    tasks = [os.path.abspath(t) for t in a.tasks] or all_tasks()
    failed = passed = 0
    if not a.tasks:
        for s in SUITES:
            n = sum(1 for t in tasks if os.path.basename(os.path.dirname(t)) == s)
            if n < MINIMUM[s]:
                print(f"FAIL suites/{s}: {n} tasks, fewer than {MINIMUM[s]}")
                failed += 1
    # Longest tasks first keeps both workers busy to the end.
    tasks.sort(key=lambda t: (os.path.basename(os.path.dirname(t)) != "level3", t))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(max(1, a.jobs), maxtasksperchild=8) as pool:
        for tid, fails, info in pool.imap_unordered(check_task, tasks):
            for f in fails:
                print(f"FAIL {tid}: {f}", flush=True)
            if fails:
                failed += 1
            else:
                passed += 1
            if a.verbose:
                w = info.get("weakest")
                print(f"  {tid}: {info['seconds']:.2f} s, {info.get('input_elements')} elements, "
                      f"float32 error {info.get('f32_error_of_tolerance', 0):.2g} of the "
                      f"tolerance, weakest check "
                      f"{w[0] if w else '-'} at {w[1] if w else 0:.3g}x its threshold", flush=True)
    print(f"checked {len(tasks)} tasks in {time.perf_counter() - t0:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

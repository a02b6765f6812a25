#!/usr/bin/python3
"""evk_oracle: the PyTorch reference runner of evokernel (the only Python in the product).

Run with /usr/bin/python3 (Debian's python3-torch). Two commands:

  describe [--max-elements N] TASK.py ...
      One JSON object per line per task: id, constants, fitted constants, input tensors,
      input element count, or the reason the task is broken. Tensors are not allocated:
      get_inputs runs against meta tensors.

  ref --seed S --out DIR [--max-elements N] [--threads T] [--timing-runs R] TASK.py
      Builds the model (torch.manual_seed(S) before construction), draws inputs, runs forward
      in float64 and float32, writes DIR/ref.safetensors (in.N, param.<name>, out.N: the float32
      reference computed from the float64 run) and DIR/meta.json (ABI order, shapes, dtypes,
      fx op list, FLOPs and bytes estimates, fitting, PyTorch eager float32 latency).

  sets --out DIR --seeds S [--variants V] [--max-elements N] [--threads T] TASK.py
      The verifier's extra input sets, each a folder like `ref` writes (without eager timing):
      DIR/edge (seed 0 with edge values: +-0, subnormals, large magnitudes, NaN where the
      reference propagates it locally, within the task's value range), DIR/shape2 (the fitted
      size constants that are input extents changed to smaller odd values), DIR/variant<k>
      (seed k%S with a few random positions, drawn from the OS's randomness, holding another
      seed's values). DIR/sets.json lists what was written and why a kind was skipped.

Exit status: 0 on success, 3 when the task itself is broken (the message says why), 2 on usage.
"""
import argparse
import contextlib
import copy
import json
import math
import os
import re
import signal
import statistics
import struct
import sys
import time
import traceback
import types

import torch

DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.int32: "I32", torch.int64: "I64",
    torch.bool: "BOOL", torch.uint8: "U8", torch.float16: "F16",
}


class TaskError(Exception):
    """The task file is broken; the message is for the user."""


class _Timeout(BaseException):
    pass


@contextlib.contextmanager
def time_limit(seconds, what):
    def handler(signum, frame):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    except _Timeout:
        raise TaskError(f"{what} did not finish within {seconds} s (an infinite loop?)")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def task_level(path):
    m = re.search(r"level\s*(\d+)", os.path.basename(os.path.dirname(os.path.abspath(path))))
    if m:
        return int(m.group(1))
    return 0


def load_module(path, timeout):
    src = open(path, encoding="utf-8").read()
    mod = types.ModuleType("evk_task_" + re.sub(r"\W", "_", os.path.basename(path)[:-3]))
    mod.__file__ = path
    try:
        code = compile(src, path, "exec")
    except SyntaxError as e:
        raise TaskError(f"syntax error at line {e.lineno}: {e.msg}")
    try:
        with time_limit(timeout, "importing the task"):
            exec(code, mod.__dict__)
    except TaskError:
        raise
    except Exception as e:
        raise TaskError(f"importing the task raised {type(e).__name__}: {e}")
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in mod.__dict__:
            raise TaskError(f"missing `{name}`: a KernelBench task defines class Model, "
                            "get_inputs() and get_init_inputs()")
    return mod


def size_constants(mod):
    """Module-level integer constants read by get_inputs / get_init_inputs."""
    names = set()
    for fn in (mod.get_inputs, mod.get_init_inputs):
        code = getattr(fn, "__code__", None)
        if code is not None:
            names.update(code.co_names)
    out = {}
    for n in sorted(names):
        v = mod.__dict__.get(n)
        if isinstance(v, int) and not isinstance(v, bool):
            out[n] = v
    return out


class _MetaTorch:
    """Stands in for `torch` inside get_inputs: factories return meta tensors, so sizes can be
    measured without allocating gigabytes."""
    _FACTORIES = {"randn", "rand", "zeros", "ones", "empty", "randint", "full", "arange",
                  "randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "tensor"}

    def __getattr__(self, name):
        real = getattr(torch, name)
        if name not in self._FACTORIES:
            return real

        def factory(*args, **kwargs):
            kwargs.pop("generator", None)
            if name == "tensor":
                return torch.tensor(*args, **kwargs)
            kwargs["device"] = "meta"
            if name == "randint":
                # randint(high, size) or randint(low, high, size)
                size = kwargs.pop("size", None) or args[-1]
                return torch.empty(size, dtype=kwargs.get("dtype", torch.int64), device="meta")
            return real(*args, **kwargs)
        return factory


def count_input_elements(mod):
    inputs = None
    try:
        g = mod.get_inputs.__globals__
        saved = g.get("torch")
        g["torch"] = _MetaTorch()
        try:
            inputs = mod.get_inputs()
        finally:
            g["torch"] = saved
    except Exception:
        inputs = None
    if inputs is None:
        inputs = mod.get_inputs()
    total = 0
    for x in inputs:
        if isinstance(x, torch.Tensor):
            total += x.numel()
        else:
            total += 1
    return total


def fit(mod, max_elements):
    """Halves the largest size constant until the inputs fit. Returns {name: [from, to]}."""
    consts = size_constants(mod)
    original = dict(consts)
    n = count_input_elements(mod)
    if max_elements <= 0 or n <= max_elements:
        return {}, n
    while n > max_elements:
        candidates = [k for k, v in consts.items() if v > 1]
        if not candidates:
            raise TaskError(f"inputs hold {n} elements and no size constant can shrink further "
                            f"to fit --max-elements {max_elements}: raise --max-elements")
        k = max(candidates, key=lambda c: (consts[c], c))
        consts[k] = max(1, consts[k] // 2)
        mod.__dict__[k] = consts[k]
        n = count_input_elements(mod)
    return {k: [original[k], consts[k]] for k in consts if consts[k] != original[k]}, n


def apply_fitting(mod, fitted):
    for k, (_, to) in fitted.items():
        mod.__dict__[k] = to


def describe(path, max_elements, timeout):
    tid = os.path.splitext(os.path.basename(path))[0]
    out = {"id": tid, "path": os.path.abspath(path), "level": task_level(path)}
    try:
        mod = load_module(path, timeout)
        out["doc"] = (mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else ""
        out["constants"] = size_constants(mod)
        with time_limit(timeout, "get_inputs"):
            fitted, n = fit(mod, max_elements)
        out["fitted"] = fitted
        out["input_elements"] = n
        out["ok"] = True
    except TaskError as e:
        out.update(ok=False, error=str(e))
    except Exception as e:
        out.update(ok=False, error=f"{type(e).__name__}: {e}")
    return out


def tolerance(mod, name):
    """A task's own ATOL/RTOL module constant, or None for the verifier's default."""
    v = mod.__dict__.get(name)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def tensor_entry(name, t, role):
    if t.dtype not in DTYPES:
        raise TaskError(f"{name} has dtype {t.dtype}, which evokernel does not support")
    return {"name": name, "role": role, "dtype": DTYPES[t.dtype], "shape": list(t.shape)}


def as_tensor(x, name):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, bool):
        return torch.tensor(x)
    if isinstance(x, int):
        return torch.tensor(x, dtype=torch.int64)
    if isinstance(x, float):
        return torch.tensor(x, dtype=torch.float32)
    raise TaskError(f"{name} is a {type(x).__name__}; inputs must be tensors or numbers")


def outputs_of(y):
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    for i, t in enumerate(ys):
        if not isinstance(t, torch.Tensor):
            raise TaskError(f"forward returned a {type(t).__name__} as output {i}; "
                            "outputs must be tensors")
    return ys


def upcast(x):
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.double()
    return x


def _shape_of(a):
    meta = getattr(a, "meta", {}).get("tensor_meta") if hasattr(a, "meta") else None
    return list(meta.shape) if meta is not None and hasattr(meta, "shape") else None


def _node_flops(node, mods, shape):
    """FLOPs of one fx node: 2*MACs for products and convolutions, one per output element else."""
    numel = math.prod(shape) if shape else 0
    first = _shape_of(node.args[0]) if node.args else None
    if node.op == "call_module":
        m = mods[node.target]
        if isinstance(m, torch.nn.Linear):
            return 2 * numel * m.in_features
        if isinstance(m, (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d,
                          torch.nn.ConvTranspose3d)):
            return 2 * (math.prod(first) if first else numel) * m.weight[0].numel()
        if isinstance(m, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)):
            return 2 * numel * m.weight[0].numel()
        return numel
    name = getattr(node.target, "__name__", str(node.target))
    if name in ("matmul", "bmm", "mm", "linear", "einsum", "baddbmm", "addmm", "__matmul__"):
        k = first[-1] if first else 1
        return 2 * numel * k
    return numel


def fx_ops(model, inputs):
    """The torch.fx op list with output shapes and FLOPs, or [] when tracing fails."""
    try:
        from torch.fx import symbolic_trace
        from torch.fx.passes.shape_prop import ShapeProp
        gm = symbolic_trace(model)
        ShapeProp(gm).propagate(*inputs)
    except Exception:
        return []
    mods = dict(gm.named_modules())
    ops = []
    for node in gm.graph.nodes:
        shape = _shape_of(node)

        def arg_text(a):
            return re.sub(r"\s+", " ", str(a))
        entry = {"name": node.name, "kind": node.op, "target": str(node.target), "shape": shape,
                 "args": arg_text(node.args), "kwargs": arg_text(node.kwargs)}
        if node.op == "call_module":
            m = mods[node.target]
            entry["op"] = type(m).__name__
            entry["module"] = re.sub(r"\s+", " ", repr(m))
        elif node.op == "call_function":
            entry["op"] = getattr(node.target, "__name__", str(node.target))
        elif node.op == "call_method":
            entry["op"] = str(node.target)
        else:
            entry["op"] = node.op
        if node.op in ("call_module", "call_function", "call_method"):
            entry["flops"] = int(_node_flops(node, mods, shape))
        ops.append(entry)
    return ops


def eager_latency(model, inputs, runs, threads):
    torch.set_num_threads(threads)
    times = []
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        deadline = time.perf_counter() + 30.0
        for _ in range(runs):
            t0 = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
            if time.perf_counter() > deadline and len(times) >= 3:
                break
    times.sort()
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [times[0]] * 3
    return {"median_ms": statistics.median(times), "iqr_ms": q[2] - q[0], "runs": len(times),
            "threads": threads, "allocator_reuse": os.environ.get("MALLOC_MMAP_THRESHOLD_") is not None}


def write_safetensors(path, tensors, metadata):
    header = {"__metadata__": metadata}
    blobs = []
    off = 0
    for name, t in tensors:
        t = t.detach().contiguous().cpu()
        if t.dtype == torch.bool:
            raw = t.to(torch.uint8).numpy().tobytes()
        else:
            raw = t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - (8 + len(h)) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
    os.replace(tmp, path)


def reference(path, seed, out_dir, max_elements, threads, timing_runs, timeout):
    torch.set_num_threads(threads)
    mod = load_module(path, timeout)
    with time_limit(timeout, "get_inputs"):
        fitted, n_in = fit(mod, max_elements)
    with time_limit(timeout, "building the model and running forward"):
        torch.manual_seed(seed)
        try:
            init = mod.get_init_inputs()
            model = mod.Model(*init).eval()
        except Exception as e:
            raise TaskError(f"building Model raised {type(e).__name__}: {e}")
        torch.manual_seed(seed + 1_000_003)
        raw_inputs = mod.get_inputs()
        inputs = [as_tensor(x, f"input {i}") for i, x in enumerate(raw_inputs)]
        try:
            with torch.no_grad():
                y32 = outputs_of(model(*raw_inputs))
                m64 = copy.deepcopy(model).double()
                y64 = outputs_of(m64(*[upcast(x) for x in raw_inputs]))
        except TaskError:
            raise
        except Exception as e:
            raise TaskError(f"forward raised {type(e).__name__}: {e}")
    refs = []
    for a, b in zip(y32, y64):
        refs.append(b.to(a.dtype) if b.is_floating_point() else b)
    max_abs = max_rel = 0.0
    for a, b in zip(y32, refs):
        if a.is_floating_point() and a.numel():
            d = (a.double() - b.double()).abs()
            max_abs = max(max_abs, float(d.max()))
            max_rel = max(max_rel, float((d / (b.double().abs() + 1e-12)).max()))

    state = model.state_dict()
    tensors, abi = [], []
    for i, t in enumerate(inputs):
        e = tensor_entry(f"in.{i}", t, "input")
        e["scalar"] = not isinstance(raw_inputs[i], torch.Tensor)
        abi.append(e)
        tensors.append((e["name"], t))
    for k, t in state.items():
        e = tensor_entry(f"param.{k}", t, "param")
        abi.append(e)
        tensors.append((e["name"], t))
    outs = []
    for i, t in enumerate(refs):
        e = tensor_entry(f"out.{i}", t, "output")
        outs.append(e)
        tensors.append((e["name"], t))

    ops = fx_ops(model, raw_inputs)
    nbytes = sum(t.numel() * t.element_size() for _, t in tensors)
    meta = {
        "task": os.path.splitext(os.path.basename(path))[0],
        "path": os.path.abspath(path),
        "level": task_level(path),
        "seed": seed,
        "max_elements": max_elements,
        "fitted": fitted,
        "constants": size_constants(mod),
        "input_elements": n_in,
        "abi": abi,
        "outputs": outs,
        "fx_ops": ops,
        "flops": sum(op.get("flops", 0) for op in ops),
        "bytes": int(nbytes),
        "f32_vs_f64": {"max_abs": max_abs, "max_rel": max_rel},
        "torch_version": torch.__version__,
        "atol": tolerance(mod, "ATOL"),
        "rtol": tolerance(mod, "RTOL"),
    }
    with time_limit(max(timeout, 60), "timing the PyTorch baseline"):
        meta["eager"] = eager_latency(model, raw_inputs, timing_runs, threads)
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "ref.safetensors"), tensors,
                      {"task": meta["task"], "seed": str(seed)})
    tmp = os.path.join(out_dir, "meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(tmp, os.path.join(out_dir, "meta.json"))
    return meta


# ---- the verifier's extra input sets (command `sets`) -------------------------------------

def _build(mod, seed):
    """The model and raw inputs of `seed`, drawn exactly as `reference` draws them."""
    torch.manual_seed(seed)
    model = mod.Model(*mod.get_init_inputs()).eval()
    torch.manual_seed(seed + 1_000_003)
    return model, list(mod.get_inputs())


def _forward(model, raw_inputs):
    """(float32 outputs, float64 reference cast to the output dtypes)."""
    with torch.no_grad():
        y32 = outputs_of(model(*raw_inputs))
        y64 = outputs_of(copy.deepcopy(model).double()(*[upcast(x) for x in raw_inputs]))
    return y32, [b.to(a.dtype) if b.is_floating_point() else b for a, b in zip(y32, y64)]


def _close(got, ref, atol, rtol):
    """The verifier's rule (src/verify/compare.h): elementwise |d| <= atol + rtol|ref| with a
    NaN matched only by a NaN, and ||d|| <= rtol ||ref|| + atol sqrt(n) over the finite part."""
    for g, r in zip(got, ref):
        if not r.is_floating_point():
            if not torch.equal(g, r):
                return False
            continue
        g, r = g.double(), r.double()
        nan_r = torch.isnan(r)
        if not torch.equal(nan_r, torch.isnan(g)):
            return False
        fin = torch.isfinite(r)
        if not torch.equal(g[~fin & ~nan_r], r[~fin & ~nan_r]):
            return False
        d = (g[fin] - r[fin]).abs()
        if d.numel() and bool((d > atol + rtol * r[fin].abs()).any()):
            return False
        if float(d.norm()) > rtol * float(r[fin].norm()) + atol * math.sqrt(max(1, d.numel())):
            return False
    return True


def _nonfinite(ys):
    return sum(int((~torch.isfinite(y)).sum()) for y in ys if y.is_floating_point())


def _edge_values(x, k, level, gen):
    """k edge values for tensor x at aggressiveness `level` (0: with NaN, 1: finite, 2: the
    seed's own range), cycling through the kinds so that every kind occurs."""
    xd = x.double()
    scale = float(xd.std()) if x.numel() > 1 and float(xd.std()) > 0 else 1.0
    lo, hi = float(xd.min()), float(xd.max())
    nonneg = lo >= 0
    sub = 1e-40 if x.dtype == torch.float32 else 1e-310
    kinds = [0.0, -0.0, sub, -sub]
    if level <= 1:
        kinds += ["big", "-big"]
    if level == 0:
        kinds += [float("nan")]
    if level == 2:
        kinds += [lo, hi]
    u = torch.rand(k, generator=gen, dtype=torch.float64)
    vals = []
    for i in range(k):
        kd = kinds[i % len(kinds)]
        if kd == "big" or kd == "-big":
            v = (5 + 5 * float(u[i])) * max(scale, 1.0) * (1 if kd == "big" else -1)
        else:
            v = kd
        if nonneg and not math.isnan(v):
            v = abs(v) if v != 0 else 0.0
        vals.append(v)
    return torch.tensor(vals, dtype=torch.float64).to(x.dtype)


def _edge_inputs(raw_inputs, level, gen):
    out, injected = [], 0
    for x in raw_inputs:
        if not (isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 0):
            out.append(x)
            continue
        y = x.clone().contiguous()
        flat = y.view(-1)
        n = flat.numel()
        k = min(n, max(8, n // 50))
        pos = torch.randperm(n, generator=gen)[:k]
        vals = _edge_values(x, k, level, gen)
        flat[pos] = vals
        injected += int(torch.isnan(vals).sum())
        out.append(y)
    return out, injected


def _tolerances(mod):
    a, r = tolerance(mod, "ATOL"), tolerance(mod, "RTOL")
    return (1e-2 if a is None else a), (1e-2 if r is None else r)


def _write_set(out_dir, path, mod, model, raw_inputs, refs, seed, extra):
    inputs = [as_tensor(x, f"input {i}") for i, x in enumerate(raw_inputs)]
    tensors, abi = [], []
    for i, t in enumerate(inputs):
        e = tensor_entry(f"in.{i}", t, "input")
        e["scalar"] = not isinstance(raw_inputs[i], torch.Tensor)
        abi.append(e)
        tensors.append((e["name"], t))
    for k, t in model.state_dict().items():
        e = tensor_entry(f"param.{k}", t, "param")
        abi.append(e)
        tensors.append((e["name"], t))
    outs = []
    for i, t in enumerate(refs):
        e = tensor_entry(f"out.{i}", t, "output")
        outs.append(e)
        tensors.append((e["name"], t))
    ops = fx_ops(model, raw_inputs)
    meta = {"task": os.path.splitext(os.path.basename(path))[0], "path": os.path.abspath(path),
            "seed": seed, "abi": abi, "outputs": outs,
            "flops": sum(op.get("flops", 0) for op in ops),
            "bytes": int(sum(t.numel() * t.element_size() for _, t in tensors)),
            "atol": tolerance(mod, "ATOL"), "rtol": tolerance(mod, "RTOL"),
            "eager": {"median_ms": 0.0, "runs": 0}}
    meta.update(extra)
    os.makedirs(out_dir, exist_ok=True)
    write_safetensors(os.path.join(out_dir, "ref.safetensors"), tensors,
                      {"task": meta["task"], "seed": str(seed)})
    with open(os.path.join(out_dir, "meta.json.tmp"), "w") as f:
        json.dump(meta, f, indent=1)
    os.replace(os.path.join(out_dir, "meta.json.tmp"), os.path.join(out_dir, "meta.json"))


def edge_set(mod, path, out_dir, gen):
    """Seed 0 with edge values; the most aggressive level whose reference stays well-defined
    (NaN only where it was put, locally) and which PyTorch's own float32 passes."""
    atol, rtol = _tolerances(mod)
    model, raw = _build(mod, 0)
    _, base = _forward(model, raw)
    base_bad = _nonfinite(base)
    why = []
    for level in (0, 1, 2):
        ins, nans = _edge_inputs(raw, level, gen)
        try:
            y32, ref = _forward(model, ins)
        except Exception as e:
            why.append(f"level {level}: forward raised {type(e).__name__}")
            continue
        bad = _nonfinite(ref) - base_bad
        if level == 0 and (nans == 0 or bad > 2 * nans):
            why.append("NaN does not stay local in this operator")
            continue
        if level > 0 and bad > 0:
            why.append(f"level {level}: the reference leaves the finite range")
            continue
        if not _close(y32, ref, atol, rtol):
            why.append(f"level {level}: PyTorch float32 itself misses the tolerance")
            continue
        _write_set(out_dir, path, mod, model, ins, ref, 0,
                   {"kind": "edge", "edge_level": level, "nan_injected": nans})
        return None
    return "; ".join(why) or "no floating inputs"


def _input_extents(mod):
    torch.manual_seed(1_000_003)
    ext = set()
    for x in mod.get_inputs():
        if isinstance(x, torch.Tensor):
            ext.update(int(d) for d in x.shape)
    return ext


def _odd_smaller(v):
    w = max(3, (v * 3) // 4) | 1
    return w - 2 if w >= v else w


def shape2_set(mod, path, out_dir):
    """The fitted size constants that are input extents, changed to smaller odd values (all at
    once, else one at a time, largest first): a kernel with hard-coded shapes or no tail fails."""
    atol, rtol = _tolerances(mod)
    consts = size_constants(mod)
    ext = _input_extents(mod)
    cands = sorted([k for k, v in consts.items() if v >= 4 and v in ext],
                   key=lambda k: (-consts[k], k))
    trials = [cands] + [[k] for k in cands] if len(cands) > 1 else [cands]
    for names in trials:
        if not names:
            continue
        saved = {k: mod.__dict__[k] for k in names}
        for k in names:
            mod.__dict__[k] = _odd_smaller(consts[k])
        try:
            model, raw = _build(mod, 0)
            y32, ref = _forward(model, raw)
            ok = _nonfinite(ref) == 0 and _close(y32, ref, atol, rtol)
        except Exception:
            ok = False
        if ok:
            _write_set(out_dir, path, mod, model, raw, ref, 0,
                       {"kind": "shape2", "changed": {k: [consts[k], mod.__dict__[k]] for k in names}})
            for k, v in saved.items():
                mod.__dict__[k] = v
            return None
        for k, v in saved.items():
            mod.__dict__[k] = v
    return "no size constant that is an input extent could change" if not cands else \
        "the task rejects every other size tried"


def variant_set(mod, path, out_dir, k, seeds, rng):
    """Seed k%S where a few random positions of one input hold a donor seed's values (scaled up
    until the reference differs beyond the tolerance): a cache keyed on pointers and sampled
    values returns the base seed's outputs for it."""
    atol, rtol = _tolerances(mod)
    base_seed = k % seeds
    donor_seed = (k + 1) % seeds if seeds > 1 else 1000 + k
    model, raw = _build(mod, base_seed)
    _, donor = _build(mod, donor_seed)
    _, base_ref = _forward(model, raw)
    fl = [i for i, x in enumerate(raw) if isinstance(x, torch.Tensor) and x.is_floating_point()
          and x.numel() > 0]
    if not fl:
        return "no floating input"
    count, gain = 4, 1.0
    for attempt in range(4):
        ins = [x.clone().contiguous() if i in fl else x for i, x in enumerate(raw)]
        changed = []
        for _ in range(count):
            i = rng.choice(fl)
            n = ins[i].numel()
            p = rng.randrange(n)
            ins[i].view(-1)[p] = donor[i].reshape(-1)[p] * gain + (gain - 1.0)
            changed.append([i, p])
        y32, ref = _forward(model, ins)
        distinct = not _close(base_ref, ref, atol * 10, rtol * 10)
        if distinct or attempt == 3:
            _write_set(out_dir, path, mod, model, ins, ref, base_seed,
                       {"kind": "variant", "base_seed": base_seed, "donor_seed": donor_seed,
                        "positions": changed, "distinct": distinct})
            return None
        count, gain = count * 8, gain * 4


def extra_sets(path, out_dir, seeds, variants, max_elements, threads, timeout):
    import random
    torch.set_num_threads(threads)
    mod = load_module(path, timeout)
    with time_limit(timeout, "get_inputs"):
        fit(mod, max_elements)
    rng = random.SystemRandom()  # positions a kernel's author cannot predict
    gen = torch.Generator().manual_seed(rng.randrange(1 << 62))
    report = {"written": [], "skipped": {}}
    with time_limit(max(timeout, 60), "computing the extra input sets"):
        jobs = [("edge", lambda d: edge_set(mod, path, d, gen)),
                ("shape2", lambda d: shape2_set(mod, path, d))]
        jobs += [(f"variant{k}", lambda d, k=k: variant_set(mod, path, d, k, seeds, rng))
                 for k in range(variants)]
        for name, fn in jobs:
            try:
                why = fn(os.path.join(out_dir, name))
            except TaskError:
                raise
            except Exception as e:
                why = f"{type(e).__name__}: {e}"
            if why is None:
                report["written"].append(name)
            else:
                report["skipped"][name] = why
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "sets.json"), "w") as f:
        json.dump(report, f, indent=1)
    return report


def main(argv):
    p = argparse.ArgumentParser(prog="evk_oracle")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("describe")
    d.add_argument("--max-elements", type=int, default=0)
    d.add_argument("--timeout", type=float, default=60)
    d.add_argument("tasks", nargs="+")
    r = sub.add_parser("ref")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--max-elements", type=int, default=0)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--timing-runs", type=int, default=20)
    r.add_argument("--timeout", type=float, default=300)
    r.add_argument("task")
    x = sub.add_parser("sets")
    x.add_argument("--out", required=True)
    x.add_argument("--seeds", type=int, default=3)
    x.add_argument("--variants", type=int, default=2)
    x.add_argument("--max-elements", type=int, default=0)
    x.add_argument("--threads", type=int, default=1)
    x.add_argument("--timeout", type=float, default=300)
    x.add_argument("task")
    a = p.parse_args(argv)
    if a.cmd == "describe":
        for t in a.tasks:
            print(json.dumps(describe(t, a.max_elements, a.timeout)), flush=True)
        return 0
    if a.cmd == "sets":
        try:
            rep = extra_sets(a.task, a.out, a.seeds, a.variants, a.max_elements, a.threads,
                             a.timeout)
        except TaskError as e:
            print(json.dumps({"ok": False, "error": str(e)}))
            return 3
        print(json.dumps({"ok": True, "out": a.out, **rep}))
        return 0
    try:
        meta = reference(a.task, a.seed, a.out, a.max_elements, a.threads, a.timing_runs,
                         a.timeout)
    except TaskError as e:
        print(json.dumps({"ok": False, "error": str(e)}))
        return 3
    except Exception as e:
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}",
                          "trace": traceback.format_exc()[-2000:]}))
        return 3
    print(json.dumps({"ok": True, "out": a.out, "eager_ms": meta["eager"]["median_ms"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

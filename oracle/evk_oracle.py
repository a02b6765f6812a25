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
    a = p.parse_args(argv)
    if a.cmd == "describe":
        for t in a.tasks:
            print(json.dumps(describe(t, a.max_elements, a.timeout)), flush=True)
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

#!/usr/bin/python3
"""evk_oracle: the PyTorch reference runner of evokernel (the only Python in the product).

Run with /usr/bin/python3 (Debian's python3-torch). Two commands:

  describe [--max-elements N] [--max-gflop G] TASK.py ...
      One JSON object per line per task: id, constants, fitted constants, input tensors,
      input element count, elements and FLOPs before and after fitting, or the reason the
      task is broken. Tensors are not allocated: the model is built and run forward on the
      meta device. Fitting halves size constants until inputs, parameters and buffers hold at
      most N elements and one forward does at most G GFLOP (0: no bound).

  ref --seed S --out DIR [--max-elements N] [--max-gflop G] [--threads T] [--timing-runs R]
      TASK.py
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
  baseline [--threads T] [--gemm N]
      The eager baseline as this process runs it (one JSON line): python, torch version, the
      BLAS library torch's sgemm_ binds to (read from the process, with its name and thread
      count), torch's threads, ATen's CPU capability, the CPUs it may run on, and the rate of a
      float32 N x N x N torch.mm in GFLOP/s (by wall time and by CPU time x T). `ref` records
      the same facts, without the rate, in meta.json's "baseline".

  lint [--max-elements N] [--max-gflop G] TASK.py
      The fairness lint at the fitted size (one JSON line): findings where all zeros, a
      constant, a copy of an input, another seed's output or other values of one input pass
      the verifier's criterion or nearly, where float32 misses the float64 reference, or
      where the same forward gives different outputs.

Exit status: 0 on success, 3 when the task itself is broken (the message says why), 2 on usage.
"""
import argparse
import contextlib
import ctypes
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
from torch.overrides import TorchFunctionMode

DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.int32: "I32", torch.int64: "I64",
    torch.bool: "BOOL", torch.uint8: "U8", torch.float16: "F16",
}


class TaskError(Exception):
    """The task file is broken; the message is for the user."""


class TaskTimeout(TaskError):
    """A step of the task ran past its time limit (its JSON line says "timeout": true)."""


class _Timeout(BaseException):
    pass


def _timeout_advice(facts):
    """What to do about a step past its limit. Lowering the bounds only helps a task that
    fitting could shrink: one whose sizes are literals inside Model stays as large."""
    if facts and facts.get("within_bounds") is False:
        return (f"it stays over the bounds after fitting, {facts['elements'][1]:,} elements and "
                f"{facts['flops'][1] / 1e9:.1f} GFLOP, because its sizes are written inside "
                "Model where fitting cannot change them: raise oracle.timeout_s, or leave the "
                "task out")
    return "an infinite loop, or too large: lower --max-gflop / --max-elements or raise " \
           "oracle.timeout_s"


@contextlib.contextmanager
def time_limit(seconds, what, facts=None):
    def handler(signum, frame):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(max(1, int(seconds)))
    try:
        yield
    except _Timeout:
        raise TaskTimeout(f"{what} did not finish within {seconds} s ({_timeout_advice(facts)})")
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
    """Module-level integer constants read by get_inputs / get_init_inputs; the elements of a
    tuple or list of integers (input_shape = (16, 3, 224, 224)) count as NAME[i]."""
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
        elif (isinstance(v, (tuple, list)) and v
              and all(isinstance(e, int) and not isinstance(e, bool) for e in v)):
            for i, e in enumerate(v):
                out[f"{n}[{i}]"] = e
    return out


def set_constant(mod, key, value):
    """Sets a size constant as size_constants names it (NAME or NAME[i])."""
    m = re.fullmatch(r"(\w+)\[(\d+)\]", key)
    if m:
        old = mod.__dict__[m.group(1)]
        t = list(old)
        t[int(m.group(2))] = value
        mod.__dict__[m.group(1)] = type(old)(t)
    else:
        mod.__dict__[key] = value


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


# --- Fitting: what the machine must hold (elements) and do (FLOPs) -------------------------
# A task is measured without allocating it: the model is built and run forward on the meta
# device (shapes only), while a torch-function mode counts the FLOPs of each call. Calls run
# whole (an LSTM is one call), so the count costs little even where aten decomposes a call
# into thousands of kernels.

_META_FACTORIES = {
    torch.empty, torch.zeros, torch.ones, torch.randn, torch.rand, torch.full, torch.arange,
    torch.randint, torch.randperm, torch.eye, torch.empty_strided, torch.normal,
    torch.zeros_like, torch.ones_like, torch.randn_like, torch.rand_like, torch.empty_like,
    torch.full_like, torch.randint_like,
}
_PRODUCTS = {"matmul", "mm", "bmm", "__matmul__", "__rmatmul__", "addmm", "baddbmm", "addbmm",
             "linear", "addmv", "mv", "dot", "inner"}
_RNNS = {"lstm", "gru", "rnn_tanh", "rnn_relu"}


class _MetaUnsupported(Exception):
    """An operator has no meta kernel (or reads data): measure with real tensors instead."""


def _numel(x):
    if isinstance(x, torch.Tensor):
        return x.numel()
    if isinstance(x, (tuple, list)):
        return sum(_numel(v) for v in x)
    return 0


def _pool_out(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def _meta_max_pool(args, kwargs, dims):
    """Shape of max_poolNd on a meta input (torch 1.13 has no meta kernel for 3-d pooling)."""
    names = ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"]
    a = dict(zip(names, args))
    a.update(kwargs)
    x = a["input"]

    def tup(v, default):
        v = default if v is None or (isinstance(v, (list, tuple)) and not v) else v
        return list(v) if isinstance(v, (list, tuple)) else [v] * dims
    k = tup(a["kernel_size"], None)
    s = tup(a.get("stride"), k)
    p = tup(a.get("padding", 0), 0)
    d = tup(a.get("dilation", 1), 1)
    ceil = bool(a.get("ceil_mode", False))
    spatial = [_pool_out(n, *z, ceil) for n, *z in zip(x.shape[-dims:], k, s, p, d)]
    y = torch.empty(list(x.shape[:-dims]) + spatial, device="meta", dtype=x.dtype)
    if a.get("return_indices", False):
        return y, torch.empty(y.shape, device="meta", dtype=torch.int64)
    return y


def _einsum_flops(args):
    eq = args[0].replace(" ", "")
    ops = args[1:] if not (len(args) == 2 and isinstance(args[1], (list, tuple))) else args[1]
    sizes = {}
    for term, t in zip(eq.split("->")[0].split(","), ops):
        for c, n in zip(term.replace("...", ""), t.shape[-len(term.replace("...", "")):]):
            sizes[c] = n
    return 2 * math.prod(sizes.values())


def _call_flops(name, args, kwargs, out):
    """FLOPs of one torch call: 2*MACs for products, convolutions and recurrent layers, one per
    output element else."""
    try:
        if name in _PRODUCTS:
            a = args[1] if name in ("addmm", "baddbmm", "addbmm", "addmv") else args[0]
            if name == "__rmatmul__":
                a = args[1]
            return 2 * _numel(out) * (a.shape[-1] if a.dim() else 1)
        if name == "einsum":
            return _einsum_flops(args)
        if name.startswith("conv_transpose"):
            return 2 * args[0].numel() * args[1][0].numel()
        if name in ("conv1d", "conv2d", "conv3d", "convolution"):
            return 2 * _numel(out) * args[1][0].numel()
        if name in _RNNS:
            x = args[0]
            steps = x.shape[0] * x.shape[1] if x.dim() == 3 else x.shape[0]
            weights = args[2] if isinstance(args[2], (list, tuple)) else args[3]
            return 2 * steps * sum(w.numel() for w in weights if w.dim() == 2)
    except (AttributeError, IndexError, TypeError):
        pass
    return _numel(out)


class _Probe(TorchFunctionMode):
    """Inside: factories make meta tensors (meta=True), and calls add their FLOPs while
    `counting` is set."""

    def __init__(self, meta):
        super().__init__()
        self.meta, self.counting, self.flops, self.largest = meta, False, 0, 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if self.meta and func in _META_FACTORIES:
            kwargs["device"] = "meta"
            kwargs.pop("generator", None)
        meta_in = self.meta and any(isinstance(a, torch.Tensor) and a.is_meta for a in args[:1])
        try:
            if meta_in and name in ("max_pool3d", "max_pool3d_with_indices"):
                out = _meta_max_pool(args, kwargs, 3)
            else:
                out = func(*args, **kwargs)
        except NotImplementedError as e:
            raise _MetaUnsupported(str(e).splitlines()[0]) if self.meta else e
        except RuntimeError as e:
            if self.meta and "meta" in str(e).lower():
                raise _MetaUnsupported(str(e).splitlines()[0])
            raise
        if self.counting and isinstance(out, (torch.Tensor, tuple, list)):
            self.flops += int(_call_flops(name, args, kwargs, out))
            self.largest = max(self.largest, _numel(out))
        return out


def measure(mod, meta=True):
    """(elements, flops) of the task as its constants stand: input elements (a number counts
    one) plus parameters and buffers, or the largest tensor one call of the forward makes
    where that is more (a broadcast product), and the FLOPs of one forward. Raises ValueError
    when the forward's outputs are empty (a size shrunk below a kernel's extent)."""
    probe = _Probe(meta)
    with probe, torch.no_grad():
        torch.manual_seed(0)
        model = mod.Model(*mod.get_init_inputs())
        inputs = mod.get_inputs()
        n = sum(x.numel() if isinstance(x, torch.Tensor) else 1 for x in inputs)
        n += sum(p.numel() for p in model.parameters()) + sum(b.numel() for b in model.buffers())
        probe.counting = True
        y = model(*inputs)
    if _numel(y) == 0 and isinstance(y, (torch.Tensor, tuple, list)):
        raise ValueError("the outputs are empty")
    return max(n, probe.largest), probe.flops


def _over(n, f, max_elements, max_flops):
    """How far over the bounds: the larger ratio of measure to bound (0 where there is none)."""
    return max(n / max_elements if max_elements > 0 else 0.0,
               f / max_flops if max_flops > 0 else 0.0)


def _coarse(ratio):
    """A ratio in steps of about 9%: a halving that gains less does not count as a step."""
    return round(math.log2(ratio) * 8) if ratio > 0 else -10**9


def _fit_candidates(consts):
    """What one step may halve, in order: a batch size, then each constant from the largest;
    then the constants of equal value together (a batch size that must match a shape's
    extent)."""
    singles = sorted((k for k, v in consts.items() if v > 1),
                     key=lambda k: ("batch" not in k.lower(), -consts[k], k))
    for k in singles:
        yield (k,)
    groups = {}
    for k in singles:
        groups.setdefault(consts[k], []).append(k)
    for v in sorted(groups, reverse=True):
        if len(groups[v]) > 1:
            yield tuple(groups[v])


def _torch_version_hint(e):
    """What to do when the task calls a part of torch this PyTorch lacks (level 1's
    ScaledDotProductAttention on 1.13): the file is fine, the oracle's PyTorch is old."""
    if isinstance(e, AttributeError) and str(e).startswith("module 'torch"):
        return (f" (this oracle's PyTorch is {torch.__version__}, which lacks it: point "
                "oracle.python at an interpreter with a newer torch, or leave the task out)")
    return ""


def fit(mod, max_elements, max_gflop=0.0):
    """Shrinks the task's size constants until its elements (inputs, parameters, buffers) and
    the FLOPs of one forward are within the bounds. Each step halves the first candidate
    (_fit_candidates) whose halving brings the task closer to the bounds and leaves it
    building and running with non-empty outputs. Where no constant can shrink
    further, the task is left as close to the bounds as it gets (facts says so): a reference
    that cannot be made within its time limit is reported by the oracle run itself.
    Returns ({name: [from, to]}, facts): facts holds the elements and FLOPs before and after,
    and how they were measured."""
    consts = size_constants(mod)
    original = dict(consts)
    max_flops = max_gflop * 1e9
    meta = True
    try:
        try:
            n, f = measure(mod, True)
        except _MetaUnsupported:
            meta = False
            n, f = measure(mod, False)
    except _Timeout:
        raise
    except Exception as e:
        raise TaskError(f"building the model and running forward raised {type(e).__name__}: {e}"
                        + _torch_version_hint(e))
    facts = {"elements": [n, n], "flops": [f, f], "measured_on": "meta" if meta else "cpu"}
    over = _over(n, f, max_elements, max_flops)
    while over > 1:
        step = None
        for keys in _fit_candidates(consts):
            for k in keys:
                set_constant(mod, k, consts[k] // 2)
            try:
                n2, f2 = measure(mod, meta)
            except _Timeout:
                raise
            except Exception:
                continue  # the task does not hold together at that size (a shape mismatch)
            finally:
                for k in keys:
                    set_constant(mod, k, consts[k])
            if _coarse(_over(n2, f2, max_elements, max_flops)) < _coarse(over):
                step = (keys, n2, f2)
                break
            # else: e.g. a class count, whose halving saves next to nothing
        if step is None:
            facts["within_bounds"] = False
            break
        keys, n, f = step
        for k in keys:
            consts[k] //= 2
            set_constant(mod, k, consts[k])
        over = _over(n, f, max_elements, max_flops)
    facts["elements"][1], facts["flops"][1] = n, f
    facts.setdefault("within_bounds", True)
    return {k: [original[k], consts[k]] for k in consts if consts[k] != original[k]}, facts


def apply_fitting(mod, fitted):
    for k, (_, to) in fitted.items():
        set_constant(mod, k, to)


def describe(path, max_elements, timeout, max_gflop=0.0):
    tid = os.path.splitext(os.path.basename(path))[0]
    out = {"id": tid, "path": os.path.abspath(path), "level": task_level(path)}
    try:
        mod = load_module(path, timeout)
        out["doc"] = (mod.__doc__ or "").strip().splitlines()[0] if mod.__doc__ else ""
        out["constants"] = size_constants(mod)
        with time_limit(timeout, "fitting the task (building it and running forward on the "
                                 "meta device)"):
            fitted, facts = fit(mod, max_elements, max_gflop)
            n = count_input_elements(mod)
        out["fitted"] = fitted
        out["input_elements"] = n
        out["fit"] = facts
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
        known = ", ".join(str(d).replace("torch.", "") for d in DTYPES)
        raise TaskError(f"{name} has dtype {t.dtype}, which evokernel does not support (it "
                        f"supports {known}): make the task's tensors one of these")
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


def float64_forward(model, raw_inputs):
    """The model's outputs in float64: its own modules converted in place and back, with
    float64 the default dtype meanwhile. Not a copy: a forward may reach modules through a
    closure that a copy does not follow (KernelBench's MiniGPTBlock calls its MLP through a
    lambda), and tensors it makes itself (an LSTM's random initial state) must be float64 too.
    float32 -> float64 -> float32 is exact, so the model is unchanged afterwards. A plain tensor
    attribute the forward replaces (VanillaRNN's hidden state) is cast back to its dtype too,
    so that later float32 forwards of a stateful model still run."""
    saved = [(m, kind, name, t.dtype) for m in model.modules()
             for kind, d in (("_parameters", m._parameters), ("_buffers", m._buffers))
             for name, t in d.items() if t is not None]
    plain = [(m, name, t.dtype) for m in model.modules() for name, t in vars(m).items()
             if isinstance(t, torch.Tensor)]
    default = torch.get_default_dtype()
    model.double()
    torch.set_default_dtype(torch.float64)
    try:
        return outputs_of(model(*[upcast(x) for x in raw_inputs]))
    finally:
        torch.set_default_dtype(default)
        for m, kind, name, dtype in saved:
            t = getattr(m, kind)[name]
            if t.dtype == dtype:
                continue
            if kind == "_parameters":
                t.data = t.data.to(dtype)
            else:
                m._buffers[name] = t.to(dtype)
        for m, name, dtype in plain:
            t = vars(m).get(name)
            if isinstance(t, torch.Tensor) and t.dtype != dtype:
                setattr(m, name, t.to(dtype))


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


# --- The eager baseline's provenance: what this process actually runs ----------------------
# Debian's torch calls BLAS through the system's libblas.so.3, so which BLAS a speed-up over
# eager is measured against is a fact of this process, not of the torch build: it is read here
# from the process itself (the library its sgemm_ binds to, as mapped) and recorded with every
# reference and by `baseline`, the probe behind `evokernel doctor` and the run's health check.

class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def mapped_libraries():
    """The shared objects mapped into this process, as /proc/self/maps names them (real paths)."""
    seen = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/") and ".so" in parts[5]:
                    path = parts[5].strip()
                    if path not in seen:
                        seen.append(path)
    except OSError:
        pass
    return seen


def _symbol_file(handle, name):
    """The file that defines `name` as `handle`'s scope resolves it (dladdr), or None."""
    try:
        addr = ctypes.cast(getattr(handle, name), ctypes.c_void_p).value
    except AttributeError:
        return None
    info = _DlInfo()
    libc = ctypes.CDLL(None)
    dladdr = getattr(libc, "dladdr", None) or ctypes.CDLL("libdl.so.2").dladdr
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    if not dladdr(ctypes.c_void_p(addr), ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.realpath(info.dli_fname.decode())


def _blas_name(lib, path):
    """What the BLAS library says it is, by the functions it exports; else its file's name."""
    def call(fn, restype):
        f = getattr(lib, fn, None)
        if f is None:
            return None
        f.restype, f.argtypes = restype, []
        return f()
    config = call("openblas_get_config", ctypes.c_char_p)
    if config:
        core = call("openblas_get_corename", ctypes.c_char_p)
        words = config.decode().split()
        version = words[1] if len(words) > 1 and words[0] == "OpenBLAS" else config.decode()
        return f"OpenBLAS {version}" + (f" ({core.decode()} kernels)" if core else "")
    if getattr(lib, "MKL_Get_Version_String", None) is not None:
        return "Intel MKL"
    blis = call("bli_info_get_version_str", ctypes.c_char_p)
    if blis:
        return f"BLIS {blis.decode()}"
    if re.search(r"/blas/libblas\.so", path) or re.fullmatch(r"libblas\.so\.3\.\d+\.\d+",
                                                             os.path.basename(path)):
        return "reference BLAS (netlib)"
    return os.path.basename(path)


def _blas_threads(lib):
    """The BLAS's own thread count where it has one (1 for a library without threads)."""
    for fn in ("openblas_get_num_threads", "MKL_Get_Max_Threads", "bli_thread_get_num_threads"):
        f = getattr(lib, fn, None)
        if f is not None:
            f.restype, f.argtypes = ctypes.c_int, []
            return int(f())
    return 1


def set_blas_threads(threads):
    """Gives the BLAS torch calls `threads` threads (the environment says so too; this holds
    where the BLAS was loaded before it was read)."""
    torch.set_num_threads(threads)
    path = blas_library()
    if path:
        lib = ctypes.CDLL(path)
        for fn in ("openblas_set_num_threads", "MKL_Set_Num_Threads", "bli_thread_set_num_threads"):
            f = getattr(lib, fn, None)
            if f is not None:
                f.argtypes, f.restype = [ctypes.c_int], None
                f(threads)
                break


def blas_library():
    """The file torch's sgemm_ binds to: looked up in the global scope first, then in
    libtorch_cpu's own dependencies, the order the dynamic linker binds it in. None where the
    BLAS is linked into torch with its symbols hidden (a pip wheel's MKL)."""
    found = _symbol_file(ctypes.CDLL(None), "sgemm_")
    if found:
        return found
    for path in mapped_libraries():
        if re.search(r"/libtorch_cpu\.so", path):
            return _symbol_file(ctypes.CDLL(path), "sgemm_")
    return None


def cpu_capability():
    """The ATen CPU kernels dispatched to (DEFAULT, AVX2, AVX512): candidates compile with
    -march=native, so a build capped below the machine is a fact of the baseline."""
    backend = getattr(torch.backends, "cpu", None)
    if backend is not None and hasattr(backend, "get_cpu_capability"):
        return backend.get_cpu_capability()
    m = re.search(r"CPU capability usage: (\S+)", torch.__config__.show())
    return m.group(1) if m else "unknown"


def baseline_identity(threads):
    """The eager baseline as this process runs it."""
    path = blas_library()
    if path:
        lib = ctypes.CDLL(path)
        name, blas_threads = _blas_name(lib, path), _blas_threads(lib)
    else:
        m = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
        name, blas_threads = f"BLAS_INFO={m.group(1) if m else 'unknown'} linked into torch", 0
        path = next((p for p in mapped_libraries() if "libtorch_cpu.so" in p), "")
    return {"python": sys.executable, "torch_version": torch.__version__,
            "blas_library": path, "blas_name": name, "blas_threads": blas_threads,
            "threads": torch.get_num_threads(), "cpu_capability": cpu_capability(),
            "cpus": sorted(os.sched_getaffinity(0))}


def gemm_rate(n, threads, seconds=0.5):
    """A float32 n x n x n torch.mm: GFLOP/s by its best wall time and by CPU time x `threads`
    (the BLAS's threads: the rate on CPUs of its own, which a busy machine does not lower)."""
    a, b = torch.randn(n, n), torch.randn(n, n)
    out = torch.empty(n, n)
    flops = 2.0 * n ** 3
    torch.mm(a, b, out=out)
    walls, cpus = [], []
    deadline = time.perf_counter() + seconds
    while len(walls) < 3 or (time.perf_counter() < deadline and len(walls) < 20):
        c0, t0 = time.process_time(), time.perf_counter()
        torch.mm(a, b, out=out)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    best_cpu = min(c for c in cpus if c > 0) if any(c > 0 for c in cpus) else min(walls)
    return {"n": n, "runs": len(walls), "gflops_wall": flops / min(walls) / 1e9,
            "gflops_cpu": flops * threads / best_cpu / 1e9}


def eager_latency(model, inputs, runs, threads):
    """The eager float32 forward's wall-clock median (what verdicts divide by) and, beside it,
    its CPU time per call: on a busy machine the two part, and the CPU time tells by how much."""
    torch.set_num_threads(threads)
    times, cpu = [], []
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        # Enough runs for a median; a reference stays within a minute on two shared cores.
        deadline = time.perf_counter() + 10.0
        for _ in range(runs):
            c0, t0 = time.process_time(), time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
            if time.perf_counter() > deadline and len(times) >= 3:
                break
    times.sort()
    q = statistics.quantiles(times, n=4) if len(times) >= 2 else [times[0]] * 3
    return {"median_ms": statistics.median(times), "iqr_ms": q[2] - q[0], "runs": len(times),
            "cpu_median_ms": statistics.median(cpu), "threads": threads,
            "allocator_reuse": os.environ.get("MALLOC_MMAP_THRESHOLD_") is not None}


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


def reference(path, seed, out_dir, max_elements, threads, timing_runs, timeout, max_gflop=0.0):
    set_blas_threads(threads)
    started = time.perf_counter()
    mod = load_module(path, timeout)
    with time_limit(timeout, "fitting the task"):
        fitted, facts = fit(mod, max_elements, max_gflop)
        n_in = count_input_elements(mod)
    with time_limit(timeout, "building the model and running forward", facts):
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
                y64 = float64_forward(model, raw_inputs)
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
        "max_gflop": max_gflop,
        "fitted": fitted,
        "fit": facts,
        "constants": size_constants(mod),
        "input_elements": n_in,
        "abi": abi,
        "outputs": outs,
        "fx_ops": ops,
        # The fx count where the model traces, else the fitting's count of torch calls.
        "flops": sum(op.get("flops", 0) for op in ops) or facts["flops"][1],
        "bytes": int(nbytes),
        "f32_vs_f64": {"max_abs": max_abs, "max_rel": max_rel},
        "torch_version": torch.__version__,
        "baseline": baseline_identity(threads),
        "atol": tolerance(mod, "ATOL"),
        "rtol": tolerance(mod, "RTOL"),
    }
    with time_limit(max(timeout, 60), "timing the PyTorch baseline", facts):
        meta["eager"] = eager_latency(model, raw_inputs, timing_runs, threads)
    meta["ref_s"] = time.perf_counter() - started
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
        y64 = float64_forward(model, raw_inputs)
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
        # NaN is only asked for where it comes out as NaN, near where it went in: an operator
        # that absorbs it (argmax, comparisons, where) would judge a convention, not the math.
        if level == 0 and (nans == 0 or bad == 0 or bad > 2 * nans):
            why.append("NaN does not come out, or does not stay local, in this operator")
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


def extra_sets(path, out_dir, seeds, variants, max_elements, threads, timeout, max_gflop=0.0):
    import random
    set_blas_threads(threads)
    mod = load_module(path, timeout)
    with time_limit(timeout, "get_inputs"):
        _, facts = fit(mod, max_elements, max_gflop)  # the reference's own fitting: same shapes
    rng = random.SystemRandom()  # positions a kernel's author cannot predict
    gen = torch.Generator().manual_seed(rng.randrange(1 << 62))
    report = {"written": [], "skipped": {}}
    jobs = [("edge", lambda d: edge_set(mod, path, d, gen)),
            ("shape2", lambda d: shape2_set(mod, path, d))]
    jobs += [(f"variant{k}", lambda d, k=k: variant_set(mod, path, d, k, seeds, rng))
             for k in range(variants)]
    # Each set is at least one reference's work (a float32 and a float64 forward; a variant
    # up to four such pairs), so each gets the reference's time limit; the client allows for
    # all of them (src/tasks/oracle.cpp).
    for name, fn in jobs:
        try:
            with time_limit(max(timeout, 60), f"computing the extra input set {name}", facts):
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
# --- The fairness lint: tasks a kernel could pass without computing them ------------------
# At the fitted size and with the run's seeding, a task is degenerate when a wrong answer
# passes the verifier's criterion (or nearly: it must miss by a margin): all zeros, a copy of
# an input, a constant, the output for other inputs or of another seed; when float32 itself
# misses the float64 reference; or when the same forward gives different outputs twice.

LINT_REL_NORM_BOUND = 1e-2   # the verifier's ||out - ref|| / ||ref|| bound
LINT_DEFAULT_TOL = 1e-2      # its atol and rtol, unless the task sets ATOL / RTOL
LINT_WRONG_FRACTION = 0.01   # a wrong answer must miss on at least 1% of the elements...
LINT_WRONG_REL_NORM = 0.05   # ...or have a relative error norm of at least 5x the bound


def lint_close(a, b, atol, rtol):
    """The verifier's criterion: (passes, reason when it does not)."""
    if tuple(a.shape) != tuple(b.shape):
        return False, "shape"
    if not b.is_floating_point():
        return bool(torch.equal(a.to(b.dtype), b)), "values"
    a = a.to(b.dtype)
    if not bool(torch.isfinite(a).all()):
        return False, "non-finite"
    d = (a - b).abs_()
    if not bool((d <= b.abs().mul_(rtol).add_(atol)).all()):
        return False, "allclose"
    if float(torch.linalg.vector_norm(d)) > LINT_REL_NORM_BOUND * float(torch.linalg.vector_norm(b)):
        return False, "rel-norm"
    return True, ""


def lint_wrongness(a, b, atol, rtol):
    """(clearly wrong, description, margin) of answer a for reference b: at least
    LINT_WRONG_FRACTION of the elements outside the allclose band, or a relative error norm of
    at least LINT_WRONG_REL_NORM; margin is how many times over the nearer threshold it
    misses."""
    if tuple(a.shape) != tuple(b.shape):
        return True, "shape differs", math.inf
    if not b.is_floating_point():
        frac = float((a.to(b.dtype) != b).double().mean()) if b.numel() else 0.0
        return (frac >= LINT_WRONG_FRACTION, f"{frac:.2%} of elements differ",
                frac / LINT_WRONG_FRACTION)
    a = a.to(b.dtype)
    d = (a - b).abs_()
    frac = float((d > b.abs().mul_(rtol).add_(atol)).double().mean()) if b.numel() else 0.0
    nb = float(torch.linalg.vector_norm(b))
    nd = float(torch.linalg.vector_norm(d))
    rel = nd / nb if nb > 0 else (0.0 if nd == 0 else math.inf)
    return (frac >= LINT_WRONG_FRACTION or rel >= LINT_WRONG_REL_NORM,
            f"{frac:.2%} of elements outside tolerance, rel-norm error {rel:.3g}",
            max(frac / LINT_WRONG_FRACTION, rel / LINT_WRONG_REL_NORM))


def _lint_draw(mod, seed, input_seed):
    """The model and inputs as the oracle seeds them."""
    torch.manual_seed(seed)
    model = mod.Model(*mod.get_init_inputs()).eval()
    torch.manual_seed(input_seed + 1_000_003)
    return model, list(mod.get_inputs())


def _lint_forward(model, inputs):
    with torch.no_grad():
        return [t.detach().clone() for t in outputs_of(model(*inputs))]


def lint(path, max_elements, max_gflop, timeout):
    """{"id", "ok", "findings": [{"check", "detail"}], "seconds"}; ok false (with error) when
    the task is broken."""
    tid = os.path.splitext(os.path.basename(path))[0]
    out = {"id": tid, "findings": []}
    t0 = time.perf_counter()

    def find(check, detail):
        out["findings"].append({"check": check, "detail": detail})
    try:
        mod = load_module(path, timeout)
        with time_limit(timeout, "the fairness lint"):
            fit(mod, max_elements, max_gflop)
            atol = tolerance(mod, "ATOL") or LINT_DEFAULT_TOL
            rtol = tolerance(mod, "RTOL") or LINT_DEFAULT_TOL
            model, xs = _lint_draw(mod, 0, 0)
            y32 = _lint_forward(model, xs)
            with torch.no_grad():
                y64 = float64_forward(model, xs)
            refs = [b.to(a.dtype) if b.is_floating_point() else b for a, b in zip(y32, y64)]
            again = _lint_forward(model, xs)
            other_model, other_xs = _lint_draw(mod, 1, 1)
            y_other = _lint_forward(other_model, other_xs)
            for i, b in enumerate(refs):
                o = f"out.{i}"
                if b.is_floating_point() and not bool(torch.isfinite(b).all()):
                    find("non-finite", f"{o}: the reference is not finite")
                    continue
                ok, why = lint_close(y32[i], b, atol, rtol)
                if not ok:
                    find("float32", f"{o}: float32 misses the float64 reference ({why}): the "
                                    "tolerance is not meaningful")
                if not lint_close(again[i], y32[i], 0.0, 0.0)[0]:
                    find("non-deterministic", f"{o}: the same forward gave different outputs")
                bad, why, _ = lint_wrongness(torch.zeros_like(b), b, atol, rtol)
                if not bad:
                    find("zeros", f"{o}: an all-zero output passes or nearly ({why})")
                if b.is_floating_point() and b.numel() and float(b.abs().max()) <= atol:
                    find("near zero", f"{o}: every element is within atol={atol:g} of zero "
                                      f"(max |out| {float(b.abs().max()):.3g})")
                if b.numel() > 1:
                    c = (torch.full_like(b, float(b.double().mean())) if b.is_floating_point()
                         else torch.full_like(b, int(torch.mode(b.flatten()).values)))
                    bad, why, _ = lint_wrongness(c, b, atol, rtol)
                    if not bad:
                        find("constant", f"{o}: nearly constant: its mean passes or nearly ({why})")
                for j, x in enumerate(xs):
                    if isinstance(x, torch.Tensor) and tuple(x.shape) == tuple(b.shape):
                        bad, why, _ = lint_wrongness(x, b, atol, rtol)
                        if not bad:
                            find("input copy", f"{o}: a copy of input {j} passes or nearly ({why})")
                if i < len(y_other):
                    bad, why, _ = lint_wrongness(y_other[i], b, atol, rtol)
                    if not bad:
                        find("other seed", f"{o}: the output for another seed (model and "
                                           f"inputs) passes or nearly ({why})")
            # Each tensor input in turn drawn anew (the others and the model kept): an output
            # that does not change ignores that input.
            for j, x in enumerate(xs):
                if not (isinstance(x, torch.Tensor) and x.is_floating_point()
                        and x.numel() > 1 and j < len(other_xs)):
                    continue
                mixed = list(xs)
                mixed[j] = other_xs[j]
                ys = _lint_forward(model, mixed)
                for i, b in enumerate(refs):
                    bad, why, _ = lint_wrongness(ys[i], b, atol, rtol) if i < len(ys) else (True, "", 0)
                    if not bad:
                        find("input ignored", f"out.{i} barely depends on input {j}: other "
                                              f"values give nearly the same output ({why})")
        out["ok"] = True
    except TaskError as e:
        out.update(ok=False, error=str(e), timeout=isinstance(e, TaskTimeout))
    except Exception as e:
        out.update(ok=False, error=f"{type(e).__name__}: {e}")
    out["seconds"] = time.perf_counter() - t0
    return out


def main(argv):
    p = argparse.ArgumentParser(prog="evk_oracle")
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("describe")
    d.add_argument("--max-elements", type=int, default=0)
    d.add_argument("--max-gflop", type=float, default=0)
    d.add_argument("--timeout", type=float, default=60)
    d.add_argument("tasks", nargs="+")
    r = sub.add_parser("ref")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--max-elements", type=int, default=0)
    r.add_argument("--max-gflop", type=float, default=0)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--timing-runs", type=int, default=20)
    r.add_argument("--timeout", type=float, default=300)
    r.add_argument("task")
    x = sub.add_parser("sets")
    x.add_argument("--out", required=True)
    x.add_argument("--seeds", type=int, default=3)
    x.add_argument("--variants", type=int, default=2)
    x.add_argument("--max-elements", type=int, default=0)
    x.add_argument("--max-gflop", type=float, default=0)
    x.add_argument("--threads", type=int, default=1)
    x.add_argument("--timeout", type=float, default=300)
    x.add_argument("task")
    b = sub.add_parser("baseline")
    b.add_argument("--threads", type=int, default=1)
    b.add_argument("--gemm", type=int, default=512)
    c = sub.add_parser("lint")
    c.add_argument("--max-elements", type=int, default=0)
    c.add_argument("--max-gflop", type=float, default=0)
    c.add_argument("--timeout", type=float, default=300)
    c.add_argument("task")
    a = p.parse_args(argv)
    if a.cmd == "baseline":
        set_blas_threads(a.threads)
        out = baseline_identity(a.threads)
        out["gemm"] = gemm_rate(a.gemm, min(a.threads, out["blas_threads"] or a.threads))
        print(json.dumps(out), flush=True)
        return 0
    if a.cmd == "lint":
        set_blas_threads(1)
        out = lint(a.task, a.max_elements, a.max_gflop, a.timeout)
        print(json.dumps(out), flush=True)
        return 0 if out["ok"] else 3
    if a.cmd == "describe":
        for t in a.tasks:
            print(json.dumps(describe(t, a.max_elements, a.timeout, a.max_gflop)), flush=True)
        return 0
    if a.cmd == "sets":
        try:
            rep = extra_sets(a.task, a.out, a.seeds, a.variants, a.max_elements, a.threads,
                             a.timeout, a.max_gflop)
        except TaskError as e:
            print(json.dumps({"ok": False, "error": str(e), "timeout": isinstance(e, TaskTimeout)}))
            return 3
        print(json.dumps({"ok": True, "out": a.out, **rep}))
        return 0
    try:
        meta = reference(a.task, a.seed, a.out, a.max_elements, a.threads, a.timing_runs,
                         a.timeout, a.max_gflop)
    except TaskError as e:
        print(json.dumps({"ok": False, "error": str(e), "timeout": isinstance(e, TaskTimeout)}))
        return 3
    except Exception as e:
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}",
                          "trace": traceback.format_exc()[-2000:]}))
        return 3
    print(json.dumps({"ok": True, "out": a.out, "eager_ms": meta["eager"]["median_ms"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

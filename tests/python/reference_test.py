#!/usr/bin/python3
"""The float64 reference (oracle/evk_oracle.py float64_forward) of forwards that a copied,
upcast model gets wrong, as two KernelBench level-3 problems do: a module reached through a
closure (MiniGPTBlock's MLP lambda) and a tensor the forward makes itself (LSTM's random
initial state). Each must give float64 outputs equal to the float32 run within float32's
precision, and leave the model's own dtypes as they were. Also: a step past its time limit is
reported as a timeout, with advice that fits the task (lower the bounds, or, for a task that
stays over them, raise the time limit), and a task calling a part of torch this PyTorch lacks
is told so with the version. Exits 1 on any failure.

  /usr/bin/python3 tests/python/reference_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "oracle"))

import torch  # noqa: E402

import evk_oracle  # noqa: E402

HEAD = '"""case"""\nimport torch\nimport torch.nn as nn\n'

# The MLP is called through a lambda that holds the module dict built in __init__.
CLOSURE = HEAD + '''
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.mlp = nn.ModuleDict(dict(fc=nn.Linear(n, 2 * n), proj=nn.Linear(2 * n, n)))
        m = self.mlp
        self.mlpf = lambda x: m.proj(torch.tanh(m.fc(x)))
        self.register_buffer("scale", torch.full((n,), 0.5))
    def forward(self, x):
        return x + self.mlpf(x) * self.scale
def get_inputs():
    return [torch.randn(4, 16)]
def get_init_inputs():
    return [16]
'''

# A state made inside forward with the default dtype (zeros here, so both runs agree).
MADE_IN_FORWARD = HEAD + '''
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
    def forward(self, x):
        h0 = torch.zeros(x.shape[0], self.lin.in_features)
        return self.lin(x + h0)
def get_inputs():
    return [torch.randn(4, 16)]
def get_init_inputs():
    return [16]
'''


# A forward that replaces a plain tensor attribute (VanillaRNN's hidden state): after the
# float64 forward, a float32 forward must still run.
STATEFUL = HEAD + '''
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(2 * n, n)
        self.hidden = torch.zeros(4, n)
    def forward(self, x):
        self.hidden = torch.tanh(self.lin(torch.cat((x, self.hidden), dim=1)))
        return self.hidden
def get_inputs():
    return [torch.randn(4, 16)]
def get_init_inputs():
    return [16]
'''


# Quick for seed 0, slow for every later draw: the reference is made, the extra sets are not.
SLOW_SETS = HEAD + '''
import time
calls = [0]
class Model(nn.Module):
    def forward(self, x):
        return x * 2
def get_inputs():
    calls[0] += 1
    if calls[0] > 1:
        time.sleep(100)  # past the 60 s floor of each set's limit
    return [torch.randn(4, 16)]
def get_init_inputs():
    return []
'''


# The same, with a parameter whose size is a literal: fitting cannot bring it within the bounds.
SLOW_SETS_OVER = SLOW_SETS.replace("    def forward(self, x):",
                                   "    def __init__(self):\n"
                                   "        super().__init__()\n"
                                   "        self.w = nn.Parameter(torch.ones(64, 16))\n"
                                   "    def forward(self, x):")


# A part of torch this PyTorch lacks: the task is fine, the oracle's PyTorch is old.
NEWER_TORCH = HEAD + '''
class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.not_in_this_torch(x)
def get_inputs():
    return [torch.randn(4, 16)]
def get_init_inputs():
    return []
'''


def load(text, tmp):
    path = os.path.join(tmp, "case.py")
    with open(path, "w") as f:
        f.write(text)
    return path, evk_oracle.load_module(path, 60)


def main():
    fails = []

    def expect(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            fails.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in (("closure", CLOSURE), ("made in forward", MADE_IN_FORWARD)):
            _, mod = load(text, tmp)
            torch.manual_seed(0)
            model = mod.Model(*mod.get_init_inputs()).eval()
            xs = mod.get_inputs()
            before = {k: v.dtype for k, v in model.state_dict().items()}
            with torch.no_grad():
                y32 = evk_oracle.outputs_of(model(*xs))
                try:
                    y64 = evk_oracle.float64_forward(model, xs)
                except Exception as e:  # noqa: BLE001 - the failure is the finding
                    expect(False, f"{name}: float64 forward raised {type(e).__name__}: {e}")
                    continue
            expect(all(y.dtype == torch.float64 for y in y64), f"{name}: outputs are float64")
            err = max(float((a.double() - b).abs().max()) for a, b in zip(y32, y64))
            expect(err < 1e-5, f"{name}: float64 agrees with float32 ({err:.2e})")
            after = {k: v.dtype for k, v in model.state_dict().items()}
            expect(after == before, f"{name}: the model's dtypes are unchanged ({after})")
            expect(torch.get_default_dtype() == torch.float32, f"{name}: default dtype restored")

        _, mod = load(STATEFUL, tmp)
        model = mod.Model(*mod.get_init_inputs()).eval()
        xs = mod.get_inputs()
        with torch.no_grad():
            evk_oracle.float64_forward(model, xs)
            try:
                y = model(*xs)
                expect(y.dtype == torch.float32 and model.hidden.dtype == torch.float32,
                       "a stateful model's float32 forward after the float64 one is float32")
            except RuntimeError as e:
                expect(False, f"a stateful model's float32 forward after the float64 one: {e}")

        path, _ = load(CLOSURE, tmp)
        out = os.path.join(tmp, "ref")
        evk_oracle.reference(path, 0, out, 0, 1, 3, 60)
        with open(os.path.join(out, "meta.json")) as f:
            meta = json.load(f)
        params = [e for e in meta["abi"] if e["role"] == "param"]
        expect(len(params) == 5 and all(e["dtype"] == "F32" for e in params),
               f"the closure task's reference keeps float32 parameters ({len(params)})")
        expect(os.path.exists(os.path.join(out, "ref.safetensors")), "its tensors are written")

        # A step past its time limit says so in its JSON line, whichever command ran it: the
        # run records "oracle timeout", not "broken file" (src/tasks/oracle.cpp).
        path, _ = load(SLOW_SETS, tmp)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "oracle", "evk_oracle.py"), "sets",
                            "--out", os.path.join(tmp, "sets"), "--timeout", "2", path],
                           capture_output=True, text=True, timeout=120)
        line = json.loads(r.stdout.strip().splitlines()[-1])
        expect(r.returncode == 3 and line.get("timeout") is True,
               f"the extra sets' time limit is reported as a timeout ({line})")
        expect("lower --max-gflop" in line.get("error", ""),
               f"a task fitting could shrink is told to lower the bounds ({line})")
        # One that stays over the bounds is told that lowering them will not help.
        _, mod = load(SLOW_SETS_OVER, tmp)
        _, facts = evk_oracle.fit(mod, 100)
        try:
            with evk_oracle.time_limit(1, "a step", facts):
                time.sleep(5)
            err = ""
        except evk_oracle.TaskTimeout as e:
            err = str(e)
        expect("stays over the bounds" in err and "1,088 elements" in err
               and "raise oracle.timeout_s" in err and "lower --max-gflop" not in err,
               f"a task over the bounds is told to raise the time limit ({err})")

        _, mod = load(NEWER_TORCH, tmp)
        try:
            evk_oracle.fit(mod, 1 << 20)
            expect(False, "a missing torch function is reported")
        except evk_oracle.TaskError as e:
            expect(torch.__version__ in str(e) and "oracle.python" in str(e),
                   f"a missing torch function names this PyTorch's version ({e})")

    print(f"{len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Fitting (oracle/evk_oracle.py fit): what the machine must hold and do is bounded.

Each case is a small task text and what fitting must do with it. Nothing large is allocated:
fitting measures on the meta device. Exits 1 on any failure.

  /usr/bin/python3 tests/python/fit_test.py
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "oracle"))

import evk_oracle  # noqa: E402

HEAD = '"""case"""\nimport torch\nimport torch.nn as nn\n'

# A 8192x8192 weight behind a small input: the parameters count, not only the inputs.
BIG_WEIGHT = HEAD + '''
class Model(nn.Module):
    def __init__(self, n, k):
        super().__init__()
        self.w = nn.Parameter(torch.randn(k, n))
    def forward(self, x):
        return x @ self.w.T
batch_size = 16
in_features = 8192
out_features = 8192
def get_inputs():
    return [torch.randn(batch_size, in_features)]
def get_init_inputs():
    return [in_features, out_features]
'''

# Few elements, much work: a square matmul of 4096 is 137 GFLOP.
MATMUL = HEAD + '''
class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)
N = 4096
def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]
def get_init_inputs():
    return []
'''

# The batch size must match a tuple's extent (a broadcast): they shrink together.
TIED = HEAD + '''
class Model(nn.Module):
    def forward(self, p, t):
        return torch.mean(torch.clamp(1 - p * t, min=0))
batch_size = 8192
input_shape = (8192,)
def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size)]
def get_init_inputs():
    return []
'''

# No constant to shrink: left as it is, flagged over the bounds, not an error.
FIXED = HEAD + '''
class Model(nn.Module):
    def forward(self, x):
        return x * 2
def get_inputs():
    return [torch.randn(4096, 4096)]
def get_init_inputs():
    return []
'''

# An LSTM: one call, counted whole (2 * steps * weights), shrunk by its batch size first.
LSTM = HEAD + '''
class Model(nn.Module):
    def __init__(self, i, h, layers):
        super().__init__()
        self.lstm = nn.LSTM(i, h, layers, batch_first=True)
    def forward(self, x):
        return self.lstm(x)[0]
batch_size = 16
seq_len = 512
input_size = 256
hidden_size = 512
num_layers = 4
def get_inputs():
    return [torch.randn(batch_size, seq_len, input_size)]
def get_init_inputs():
    return [input_size, hidden_size, num_layers]
'''


def fit_case(text, max_elements, max_gflop):
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
    try:
        mod = evk_oracle.load_module(f.name, 60)
        return evk_oracle.fit(mod, max_elements, max_gflop)
    finally:
        os.unlink(f.name)


def main():
    fails = []

    def expect(cond, what):
        if not cond:
            fails.append(what)
        print(("ok   " if cond else "FAIL ") + what)

    fitted, facts = fit_case(BIG_WEIGHT, 1 << 22, 0)
    expect(facts["elements"][0] == 16 * 8192 + 8192 * 8192, "parameters are counted")
    expect(facts["elements"][1] <= 1 << 22 and facts["within_bounds"],
           f"a large weight is fitted to the element bound ({fitted})")

    fitted, facts = fit_case(MATMUL, 0, 4)
    expect(facts["flops"][0] == 2 * 4096 ** 3, f"matmul FLOPs counted ({facts['flops'][0]})")
    expect(fitted == {"N": [4096, 1024]}, f"the compute bound shrinks N to 1024 ({fitted})")

    fitted, facts = fit_case(TIED, 1 << 20, 0)
    expect(fitted.get("batch_size") == fitted.get("input_shape[0]") and "batch_size" in fitted,
           f"constants that must stay equal shrink together ({fitted})")
    expect(facts["within_bounds"], "the tied task fits")

    fitted, facts = fit_case(FIXED, 1 << 20, 0)
    expect(fitted == {} and facts["within_bounds"] is False,
           "a task without size constants is flagged over the bounds, not broken")

    fitted, facts = fit_case(LSTM, 0, 2)
    expect(facts["flops"][0] > 2 * 16 * 512 * (4 * 512 * (256 + 512)),
           f"an LSTM's FLOPs are counted ({facts['flops'][0]:.3g})")
    expect("batch_size" in fitted and facts["flops"][1] <= 2e9,
           f"an LSTM is fitted, its batch size first ({fitted})")

    fitted, facts = fit_case(MATMUL, 0, 0)
    expect(fitted == {}, "no bounds, no fitting")
    print(f"{len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

"""GRU cell unrolled over a sequence from a given initial state; returns the final hidden state."""
import torch
import torch.nn as nn

BATCH = 64
STEPS = 16
INPUT_SIZE = 128
HIDDEN = 128


class Model(nn.Module):
    def __init__(self, input_size, hidden, steps):
        super().__init__()
        self.steps = steps
        self.hidden = hidden
        self.x2h = nn.Linear(input_size, 3 * hidden)
        self.h2h = nn.Linear(hidden, 3 * hidden)

    def forward(self, x, h):
        m = self.hidden
        for t in range(self.steps):
            gx = self.x2h(x[:, t])   # reset, update, candidate parts
            gh = self.h2h(h)
            r = torch.sigmoid(gx[:, :m] + gh[:, :m])
            z = torch.sigmoid(gx[:, m:2 * m] + gh[:, m:2 * m])
            n = torch.tanh(gx[:, 2 * m:] + r * gh[:, 2 * m:])
            h = (1 - z) * n + z * h
        return h


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT_SIZE), torch.randn(BATCH, HIDDEN)]


def get_init_inputs():
    return [INPUT_SIZE, HIDDEN, STEPS]

"""LSTM cell unrolled over a sequence from zero state; returns the hidden state at every step."""
import torch
import torch.nn as nn

BATCH = 32
STEPS = 16
INPUT_SIZE = 128
HIDDEN = 128


class Model(nn.Module):
    def __init__(self, input_size, hidden, steps):
        super().__init__()
        self.hidden = hidden
        self.steps = steps
        self.x2h = nn.Linear(input_size, 4 * hidden)
        self.h2h = nn.Linear(hidden, 4 * hidden)

    def forward(self, x):
        n = self.hidden
        h = x.new_zeros((x.size(0), n))
        c = x.new_zeros((x.size(0), n))
        outs = []
        for t in range(self.steps):
            gates = self.x2h(x[:, t]) + self.h2h(h)    # input, forget, cell, output gates
            i = torch.sigmoid(gates[:, :n])
            f = torch.sigmoid(gates[:, n:2 * n])
            g = torch.tanh(gates[:, 2 * n:3 * n])
            o = torch.sigmoid(gates[:, 3 * n:])
            c = f * c + i * g
            h = o * torch.tanh(c)
            outs.append(h)
        return torch.stack(outs, dim=1)


def get_inputs():
    return [torch.randn(BATCH, STEPS, INPUT_SIZE)]


def get_init_inputs():
    return [INPUT_SIZE, HIDDEN, STEPS]

"""ReLU over a small 2-D tensor: the one task of this suite a run can attempt."""
import torch
import torch.nn as nn

ROWS = 256
COLS = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []

"""Product over dimension 1 of a 3-D tensor whose entries lie near 1."""
import torch
import torch.nn as nn

BATCH = 512
DIM1 = 16  # short: a long product of values near 1 drifts to 0 or inf
DIM2 = 1024

REDUCE_DIM = 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = REDUCE_DIM

    def forward(self, x):
        return torch.prod(x, dim=self.dim)


def get_inputs():
    return [1.0 + 0.1 * torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []

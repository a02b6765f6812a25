"""Sum over dimension 1 of a 3-D tensor."""
import torch
import torch.nn as nn

BATCH = 128
DIM1 = 256
DIM2 = 256

REDUCE_DIM = 1


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = REDUCE_DIM

    def forward(self, x):
        return torch.sum(x, dim=self.dim)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []

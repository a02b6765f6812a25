"""HardTanh clamping to [-1, 1] applied elementwise to a 2-D tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1024
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.hardtanh(x, min_val=-1.0, max_val=1.0)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []

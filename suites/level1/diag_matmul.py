"""Product of a diagonal matrix and a dense matrix: diag(a) @ B."""
import torch
import torch.nn as nn

N = 512
M = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.diag(a) @ b


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []

"""Matrix product with the first operand transposed: C = A^T @ B, A given as (K, M)."""
import torch
import torch.nn as nn

M = 512
K = 512
N = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a.T, b)


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N)]


def get_init_inputs():
    return []

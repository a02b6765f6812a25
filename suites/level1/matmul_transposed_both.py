"""Matrix product with both operands transposed: C = A^T @ B^T."""
import torch
import torch.nn as nn

M = 256
K = 256
N = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a.T, b.T)


def get_inputs():
    return [torch.randn(K, M), torch.randn(N, K)]


def get_init_inputs():
    return []

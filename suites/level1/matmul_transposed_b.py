"""Matrix product with the second operand transposed: C = A @ B^T, B given as (N, K)."""
import torch
import torch.nn as nn

M = 512
K = 512
N = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b.T)


def get_inputs():
    return [torch.randn(M, K), torch.randn(N, K)]


def get_init_inputs():
    return []

"""Matrix product with a short reduction dimension (outer-product-like): C = A @ B."""
import torch
import torch.nn as nn

M = 2048
K = 32
N = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []

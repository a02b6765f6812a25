"""Batched matrix product, plus a learned bias per output column, then tanh-approximated GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 32
M = 128
K = 256
N = 128


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(n))

    def forward(self, a, b):
        return F.gelu(torch.bmm(a, b) * 0.1 + self.bias, approximate='tanh')


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return [N]

"""Batched matrix product, scaling by 1/sqrt(d), then softmax over the last dimension."""
import torch
import torch.nn as nn

BATCH = 64
M = 128
K = 64
N = 64


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.scale = 1.0 / k ** 0.5

    def forward(self, a, b):
        return torch.softmax(torch.bmm(a, b) * self.scale, dim=-1)


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return [K]

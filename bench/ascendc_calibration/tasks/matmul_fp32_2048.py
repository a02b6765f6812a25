"""C = A @ B, 2048 x 2048 x 2048, A and B in float32, C in float32 (the cube accumulates in float)."""
import torch
import torch.nn as nn

M = N = K = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K).to(torch.float32), torch.randn(K, N).to(torch.float32)]


def get_init_inputs():
    return []

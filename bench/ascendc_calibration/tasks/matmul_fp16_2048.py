"""C = A @ B, 2048 x 2048 x 2048, A and B in float16, C in float32 (the cube accumulates in float)."""
import torch
import torch.nn as nn

M = N = K = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a.float(), b.float())


def get_inputs():
    return [torch.randn(M, K).to(torch.float16), torch.randn(K, N).to(torch.float16)]


def get_init_inputs():
    return []

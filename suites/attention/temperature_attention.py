"""Attention with a learned per-head softmax temperature: softmax(Q K^T / (sqrt(d) * t_h)) V."""
import torch
import torch.nn as nn

BATCH = 2
HEADS = 8
SEQ = 256
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, heads, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5
        # temperatures between 0.25 (sharp) and 2 (flat)
        self.temperature = nn.Parameter(0.25 + 1.75 * torch.rand(heads, 1, 1))

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale / self.temperature
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [HEADS, HEAD_DIM]

"""Rotary position embedding (base 10000, rotate-half form) applied to Q and K, then causal attention."""
import torch
import torch.nn as nn

BATCH = 2
HEADS = 8
SEQ = 256
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, seq, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5
        self.half = head_dim // 2
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
        angles = torch.arange(seq, dtype=torch.float64)[:, None] * inv_freq[None, :]
        angles = torch.cat([angles, angles], dim=-1)
        # Fixed functions of the sizes, not learned parameters: kept out of the state dict.
        self.register_buffer("cos", torch.cos(angles).float(), persistent=False)
        self.register_buffer("sin", torch.sin(angles).float(), persistent=False)

    def rotate(self, x):
        x1 = x[..., :self.half]
        x2 = x[..., self.half:]
        return x * self.cos + torch.cat([-x2, x1], dim=-1) * self.sin

    def forward(self, q, k, v):
        q = self.rotate(q)
        k = self.rotate(k)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        future = torch.ones_like(scores, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [SEQ, HEAD_DIM]

"""Causal attention with ALiBi: head h adds -m_h * (i - j) to score (i, j), m_h = 2^(-8 (h + 1) / heads)."""
import torch
import torch.nn as nn

BATCH = 2
HEADS = 8
SEQ = 256
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, heads, seq, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5
        slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)])
        pos = torch.arange(seq, dtype=torch.float32)
        distance = pos[:, None] - pos[None, :]  # i - j, >= 0 on and below the diagonal
        bias = -slopes[:, None, None] * distance
        bias = bias.masked_fill(distance < 0, float("-inf"))
        # A fixed function of the sizes, not a learned parameter: kept out of the state dict.
        self.register_buffer("bias", bias, persistent=False)

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale + self.bias
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [HEADS, SEQ, HEAD_DIM]

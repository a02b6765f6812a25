"""Multi-query attention: all query heads share a single key/value head, with causal masking."""
import torch
import torch.nn as nn

BATCH = 2
HEADS = 8
SEQ = 256
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, q, k, v):
        # q: (B, H, S, D); k, v: (B, 1, S, D), broadcast over the heads
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        future = torch.ones_like(scores, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, 1, SEQ, HEAD_DIM),
            torch.randn(BATCH, 1, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [HEAD_DIM]

"""Grouped-query attention: 8 query heads share 2 key/value heads (each K/V head serves 4 query heads)."""
import torch
import torch.nn as nn

BATCH = 2
Q_HEADS = 8
KV_HEADS = 2
SEQ = 256
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, q_heads, kv_heads, head_dim):
        super().__init__()
        self.group = q_heads // kv_heads
        self.scale = head_dim ** -0.5

    def forward(self, q, k, v):
        k = k.repeat_interleave(self.group, dim=1)
        v = v.repeat_interleave(self.group, dim=1)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, Q_HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, KV_HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, KV_HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [Q_HEADS, KV_HEADS, HEAD_DIM]

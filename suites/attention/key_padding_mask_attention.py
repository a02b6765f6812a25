"""Attention over padded key sequences: keys at positions >= lengths[b] (int64 per batch item) are masked out."""
import torch
import torch.nn as nn

BATCH = 4
HEADS = 8
SEQ = 256
HEAD_DIM = 32


class Model(nn.Module):
    def __init__(self, seq, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5
        self.register_buffer("positions", torch.arange(seq), persistent=False)

    def forward(self, q, k, v, lengths):
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        padded = self.positions[None, :] >= lengths[:, None]          # (B, S) True on padding
        scores = scores.masked_fill(padded[:, None, None, :], float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randint(SEQ // 8, SEQ + 1, (BATCH,))]


def get_init_inputs():
    return [SEQ, HEAD_DIM]

"""Causal sliding-window attention: query i attends to keys i-WINDOW+1..i only."""
import torch
import torch.nn as nn

BATCH = 1
HEADS = 4
SEQ = 512
HEAD_DIM = 64
WINDOW = 64


class Model(nn.Module):
    def __init__(self, head_dim, window):
        super().__init__()
        self.scale = head_dim ** -0.5
        self.window = window

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
        ones = torch.ones_like(scores, dtype=torch.bool)
        outside = ones.triu(1) | ones.tril(-self.window)
        scores = scores.masked_fill(outside, float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [HEAD_DIM, WINDOW]

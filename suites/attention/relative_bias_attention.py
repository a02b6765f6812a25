"""Attention with a learned relative-position bias per head, indexed by the clipped offset j - i."""
import torch
import torch.nn as nn

BATCH = 2
HEADS = 8
SEQ = 256
HEAD_DIM = 64
MAX_DISTANCE = 32


class Model(nn.Module):
    def __init__(self, heads, seq, head_dim, max_distance):
        super().__init__()
        self.scale = head_dim ** -0.5
        self.table = nn.Parameter(torch.randn(heads, 2 * max_distance + 1))
        pos = torch.arange(seq)
        offset = (pos[None, :] - pos[:, None]).clamp(-max_distance, max_distance) + max_distance
        self.register_buffer("offset", offset, persistent=False)

    def forward(self, q, k, v):
        bias = self.table[:, self.offset]                      # (H, S, S)
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale + bias
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return [HEADS, SEQ, HEAD_DIM, MAX_DISTANCE]

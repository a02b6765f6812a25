"""Single-token decoding attention: one query per head attends to a long key/value cache."""
import torch
import torch.nn as nn

BATCH = 4
HEADS = 8
CACHE = 2048
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, q, k_cache, v_cache):
        # q: (B, H, 1, D); caches: (B, H, CACHE, D)
        scores = torch.matmul(q, k_cache.transpose(-2, -1)) * self.scale
        return torch.matmul(torch.softmax(scores, dim=-1), v_cache)


def get_inputs():
    return [2.0 * torch.randn(BATCH, HEADS, 1, HEAD_DIM), torch.randn(BATCH, HEADS, CACHE, HEAD_DIM),
            torch.randn(BATCH, HEADS, CACHE, HEAD_DIM)]


def get_init_inputs():
    return [HEAD_DIM]

"""Non-causal linear attention with feature map elu(x) + 1: phi(Q) (phi(K)^T V) / (phi(Q) sum_j phi(K_j))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
HEADS = 8
SEQ = 1024
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        q = F.elu(q) + 1.0
        k = F.elu(k) + 1.0
        kv = torch.matmul(k.transpose(-2, -1), v)              # (B, H, D, D)
        z = torch.matmul(q, k.sum(dim=2).unsqueeze(-1))         # (B, H, S, 1)
        return torch.matmul(q, kv) / z


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM),
            torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return []

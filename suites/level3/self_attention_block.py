"""Self-attention block: multi-head attention with separate Q/K/V/output projections, residual add, then LayerNorm."""
import torch
import torch.nn as nn

BATCH = 8
SEQ = 128
D_MODEL = 128
HEADS = 8


class Model(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.out = nn.Linear(d_model, d_model)
        self.norm = nn.LayerNorm(d_model)

    def split_heads(self, t):  # (B, S, d_model) -> (B, heads, S, head_dim)
        return t.unflatten(-1, (self.heads, self.head_dim)).transpose(1, 2)

    def forward(self, x):
        q = self.split_heads(self.q(x))
        k = self.split_heads(self.k(x))
        v = self.split_heads(self.v(x))
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.head_dim ** -0.5, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).flatten(2)
        return self.norm(x + self.out(y))


def get_inputs():
    return [torch.randn(BATCH, SEQ, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, HEADS]

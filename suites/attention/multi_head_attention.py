"""Multi-head self-attention with Q/K/V and output projections on a (batch, seq, d_model) tensor."""
import torch
import torch.nn as nn

BATCH = 2
SEQ = 256
D_MODEL = 128
HEADS = 4


class Model(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.o_proj = nn.Linear(d_model, d_model)

    def split_heads(self, t):  # (B, S, d_model) -> (B, heads, S, head_dim)
        return t.unflatten(-1, (self.heads, self.head_dim)).transpose(1, 2)

    def forward(self, x):
        q = self.split_heads(self.q_proj(x))
        k = self.split_heads(self.k_proj(x))
        v = self.split_heads(self.v_proj(x))
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.head_dim ** -0.5, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).flatten(2)    # (B, S, d_model)
        return self.o_proj(y)


def get_inputs():
    return [torch.randn(BATCH, SEQ, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, HEADS]

"""Multi-head cross-attention: queries projected from x, keys and values from a longer context sequence."""
import torch
import torch.nn as nn

BATCH = 2
Q_SEQ = 128
KV_SEQ = 384
D_MODEL = 128
HEADS = 4


class Model(nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.d_model = d_model
        self.head_dim = d_model // heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.kv_proj = nn.Linear(d_model, 2 * d_model)
        self.o_proj = nn.Linear(d_model, d_model)

    def split_heads(self, t):  # (B, S, d_model) -> (B, heads, S, head_dim)
        return t.unflatten(-1, (self.heads, self.head_dim)).transpose(1, 2)

    def forward(self, x, context):
        q = self.split_heads(self.q_proj(x))
        kv = self.kv_proj(context)
        k = self.split_heads(kv[..., :self.d_model])
        v = self.split_heads(kv[..., self.d_model:])
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.head_dim ** -0.5, dim=-1)
        return self.o_proj(torch.matmul(att, v).transpose(1, 2).flatten(2))


def get_inputs():
    return [torch.randn(BATCH, Q_SEQ, D_MODEL), torch.randn(BATCH, KV_SEQ, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, HEADS]

"""Pre-norm transformer encoder block: LayerNorm, multi-head self-attention, residual, LayerNorm, GELU MLP, residual."""
import torch
import torch.nn as nn

BATCH = 4
SEQ = 128
D_MODEL = 128
HEADS = 4
FFN = 512


class Model(nn.Module):
    def __init__(self, d_model, heads, ffn):
        super().__init__()
        self.heads = heads
        self.head_dim = d_model // heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc1 = nn.Linear(d_model, ffn)
        self.fc2 = nn.Linear(ffn, d_model)

    def forward(self, x):
        qkv = self.qkv(self.ln1(x)).unflatten(-1, (3, self.heads, self.head_dim))
        q = qkv[:, :, 0].transpose(1, 2)   # (B, heads, S, head_dim)
        k = qkv[:, :, 1].transpose(1, 2)
        v = qkv[:, :, 2].transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) * self.head_dim ** -0.5, dim=-1)
        y = (att @ v).transpose(1, 2).flatten(2)
        x = x + self.proj(y)
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


def get_inputs():
    return [torch.randn(BATCH, SEQ, D_MODEL)]


def get_init_inputs():
    return [D_MODEL, HEADS, FFN]

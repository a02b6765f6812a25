"""Matrix product without bias, then a separate bias add, then exact GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 128
IN_FEATURES = 1024
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(0.2 * torch.randn(out_features))

    def forward(self, x):
        return F.gelu(self.linear(x) + self.bias)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

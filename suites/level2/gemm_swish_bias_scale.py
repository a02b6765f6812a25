"""Linear layer, then Swish, then a learned per-feature bias and a constant scale."""
import torch
import torch.nn as nn

BATCH = 128
IN_FEATURES = 1024
OUT_FEATURES = 512

SCALE = 0.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(0.2 * torch.randn(out_features))
        self.scale = scale

    def forward(self, x):
        y = self.linear(x)
        return (y * torch.sigmoid(y) + self.bias) * self.scale


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALE]

"""Linear layer, then multiplication by a constant, then LeakyReLU (slope 0.1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 128
IN_FEATURES = 1024
OUT_FEATURES = 512

MULTIPLIER = 2.0


class Model(nn.Module):
    def __init__(self, in_features, out_features, multiplier):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.multiplier = multiplier

    def forward(self, x):
        return F.leaky_relu(self.linear(x) * self.multiplier, negative_slope=0.1)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, MULTIPLIER]

"""Pointwise (1x1) Conv2d, then ReLU, then a residual add of the input."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 64
HEIGHT = 32
WIDTH = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        return torch.relu(self.conv(x)) + x


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]

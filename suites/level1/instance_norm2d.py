"""InstanceNorm2d (no affine) over an NCHW tensor: each (sample, channel) plane normalised."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 64
WIDTH = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [3.0 * torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) + 1.0]


def get_init_inputs():
    return [CHANNELS]

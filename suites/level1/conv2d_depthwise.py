"""Depthwise Conv2d (3x3, one filter per channel, padding 1, with bias) over an NCHW tensor."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 64
HEIGHT = 64
WIDTH = 64

KERNEL_SIZE = 3


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, padding=kernel_size // 2, groups=channels)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS, KERNEL_SIZE]

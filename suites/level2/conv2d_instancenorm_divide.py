"""Conv2d 3x3, then InstanceNorm2d, then division by a constant."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 64
WIDTH = 64

KERNEL_SIZE = 3
DIVISOR = 2.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, divisor):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.InstanceNorm2d(out_channels)
        self.divisor = divisor

    def forward(self, x):
        return self.norm(self.conv(x)) / self.divisor


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, DIVISOR]

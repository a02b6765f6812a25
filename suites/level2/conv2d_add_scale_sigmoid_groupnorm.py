"""Conv2d 3x3, then a learned bias add, a learned per-channel scale, sigmoid and GroupNorm."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 64
WIDTH = 64

KERNEL_SIZE = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bias = nn.Parameter(0.2 * torch.randn(out_channels, 1, 1))
        self.scale = nn.Parameter(1.0 + 0.5 * torch.randn(out_channels, 1, 1))
        self.norm = nn.GroupNorm(8, out_channels)

    def forward(self, x):
        y = torch.sigmoid((self.conv(x) + self.bias) * self.scale)
        return self.norm(y)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]

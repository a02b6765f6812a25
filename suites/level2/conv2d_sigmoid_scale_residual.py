"""Conv2d 3x3, then a sigmoid gate scaled by a constant, added back to the convolution output."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 64
WIDTH = 64

KERNEL_SIZE = 3
SCALE = 2.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, scale):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.scale = scale

    def forward(self, x):
        y = self.conv(x)
        return y + self.scale * torch.sigmoid(y) * y


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, SCALE]

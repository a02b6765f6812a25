"""Conv3d (3x3x3, padding 1, with bias) over an NCDHW tensor."""
import torch
import torch.nn as nn

BATCH = 2
IN_CHANNELS = 16
OUT_CHANNELS = 32
DEPTH = 16
HEIGHT = 32
WIDTH = 32

KERNEL_SIZE = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]

"""ConvTranspose2d (4x4, stride 2, padding 1, with bias) upsampling an NCHW tensor 2x."""
import torch
import torch.nn as nn

BATCH = 4
IN_CHANNELS = 64
OUT_CHANNELS = 32
HEIGHT = 32
WIDTH = 32

KERNEL_SIZE = 4


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE]

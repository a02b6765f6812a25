"""ConvTranspose2d (stride 2), then subtraction of a learned per-channel bias, then tanh."""
import torch
import torch.nn as nn

BATCH = 4
IN_CHANNELS = 64
OUT_CHANNELS = 32
HEIGHT = 32
WIDTH = 32


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv_t = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)
        self.bias = nn.Parameter(0.3 * torch.randn(out_channels, 1, 1))

    def forward(self, x):
        return torch.tanh(self.conv_t(x) - self.bias)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

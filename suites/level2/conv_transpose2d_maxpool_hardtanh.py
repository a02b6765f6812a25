"""ConvTranspose2d (stride 2), then 2x2 max pooling, then HardTanh to [-1, 1], then scaling."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4
IN_CHANNELS = 64
OUT_CHANNELS = 32
HEIGHT = 32
WIDTH = 32


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv_t = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)

    def forward(self, x):
        y = F.max_pool2d(self.conv_t(x), 2)
        return F.hardtanh(y, -1.0, 1.0) * 0.5


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

"""Conv3d 3x3x3, then scaling by 2 and softmax over channels, then 2x2x2 max pooling."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
IN_CHANNELS = 8
OUT_CHANNELS = 16
DEPTH = 16
HEIGHT = 32
WIDTH = 32


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)

    def forward(self, x):
        return F.max_pool3d(torch.softmax(self.conv(x) * 2.0, dim=1), 2)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

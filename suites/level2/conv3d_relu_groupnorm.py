"""Conv3d 3x3x3, then ReLU, then GroupNorm (4 groups, learned affine)."""
import torch
import torch.nn as nn

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
        self.norm = nn.GroupNorm(4, out_channels)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.3 * torch.randn(out_channels))
            self.norm.bias.copy_(0.3 * torch.randn(out_channels))

    def forward(self, x):
        return self.norm(torch.relu(self.conv(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

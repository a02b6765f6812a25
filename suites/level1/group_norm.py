"""GroupNorm (8 groups, learned affine) over an NCHW tensor."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 64
WIDTH = 64

GROUPS = 8


class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.gn.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.gn.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [2.0 * torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH) + 1.0]


def get_init_inputs():
    return [GROUPS, CHANNELS]

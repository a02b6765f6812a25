"""Depthwise Conv2d 3x3, then BatchNorm2d in inference mode, then ReLU6."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 64
HEIGHT = 64
WIDTH = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
            self.bn.bias.copy_(0.3 * torch.randn(channels))
            self.bn.running_mean.copy_(0.2 * torch.randn(channels))
            self.bn.running_var.copy_(0.1 + 0.5 * torch.rand(channels))

    def forward(self, x):
        return torch.clamp(self.bn(self.conv(x)), 0.0, 6.0)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]

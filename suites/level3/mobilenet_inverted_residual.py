"""MobileNetV2 inverted residual: 1x1 expand-BN-ReLU6, 3x3 depthwise-BN-ReLU6, 1x1 project-BN, plus the input."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 24
HEIGHT = 32
WIDTH = 32
EXPANSION = 4


def _bn(channels):
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # trained-looking statistics, so inference-mode BN is not an identity
        bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
        bn.bias.copy_(0.2 * torch.randn(channels))
        bn.running_mean.copy_(0.1 * torch.randn(channels))
        bn.running_var.copy_(0.2 + 0.3 * torch.rand(channels))
    return bn


class Model(nn.Module):
    def __init__(self, channels, expansion):
        super().__init__()
        hidden = channels * expansion
        self.block = nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False), _bn(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False), _bn(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, channels, 1, bias=False), _bn(channels),
        )

    def forward(self, x):
        return x + self.block(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS, EXPANSION]

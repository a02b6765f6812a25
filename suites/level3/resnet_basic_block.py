"""ResNet basic block with a stride-2 downsampling shortcut: conv-BN-ReLU-conv-BN plus 1x1 conv-BN, then ReLU."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 32
OUT_CHANNELS = 64
HEIGHT = 64
WIDTH = 64


def _bn(channels):
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # trained-looking statistics, so inference-mode BN is not an identity
        bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
        bn.bias.copy_(0.2 * torch.randn(channels))
        bn.running_mean.copy_(0.1 * torch.randn(channels))
        bn.running_var.copy_(0.2 + 0.3 * torch.rand(channels))
    return bn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1, bias=False)
        self.bn1 = _bn(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = _bn(out_channels)
        self.down = nn.Conv2d(in_channels, out_channels, 1, stride=2, bias=False)
        self.bn_down = _bn(out_channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.bn_down(self.down(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

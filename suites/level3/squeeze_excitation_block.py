"""Conv-BN-ReLU followed by a squeeze-and-excitation gate (global pool, two small linear layers, sigmoid, rescale)."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 32
CHANNELS = 64
HEIGHT = 32
WIDTH = 32
REDUCTION = 8


class Model(nn.Module):
    def __init__(self, in_channels, channels, reduction):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
            self.bn.bias.copy_(0.2 * torch.randn(channels))
            self.bn.running_mean.copy_(0.1 * torch.randn(channels))
            self.bn.running_var.copy_(0.2 + 0.3 * torch.rand(channels))
        self.fc1 = nn.Linear(channels, channels // reduction)
        self.fc2 = nn.Linear(channels // reduction, channels)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        s = y.mean(dim=(2, 3))
        g = torch.sigmoid(self.fc2(torch.relu(self.fc1(s))) * 4.0)
        return y * g[:, :, None, None]


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, CHANNELS, REDUCTION]

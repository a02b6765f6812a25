"""BatchNorm2d in inference mode (running statistics) over an NCHW tensor."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 64
HEIGHT = 64
WIDTH = 64


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.bn.bias.copy_(0.5 * torch.randn(channels))
            self.bn.running_mean.copy_(0.5 * torch.randn(channels))
            self.bn.running_var.copy_(0.5 + torch.rand(channels))

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]

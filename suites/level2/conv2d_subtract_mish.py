"""Conv2d 3x3, then subtraction of two constants, then Mish."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 64
WIDTH = 64

KERNEL_SIZE = 3
SUB1 = 0.5
SUB2 = 0.2


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, sub1, sub2):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.sub1 = sub1
        self.sub2 = sub2

    def forward(self, x):
        y = self.conv(x) - self.sub1 - self.sub2
        return y * torch.tanh(F.softplus(y))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, SUB1, SUB2]

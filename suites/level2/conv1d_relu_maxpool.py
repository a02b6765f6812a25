"""Conv1d (kernel 5, padding 2), then ReLU, then max pooling by 2."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
IN_CHANNELS = 32
OUT_CHANNELS = 64
LENGTH = 4096


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, 5, padding=2)

    def forward(self, x):
        return F.max_pool1d(torch.relu(self.conv(x)), 2)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]

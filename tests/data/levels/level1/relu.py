"""ReLU applied elementwise to a 2-D tensor."""
import torch
import torch.nn as nn

BATCH = 1024
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []

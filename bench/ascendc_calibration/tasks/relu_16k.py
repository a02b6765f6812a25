"""ReLU over 16384 float32 elements: a launch and nothing else."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []

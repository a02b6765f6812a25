"""Hinge loss per sample: mean(max(0, 1 - pred * target)) with targets in {-1, +1}."""
import torch
import torch.nn as nn

BATCH = 32768
DIM = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, target):
        return torch.clamp(1.0 - pred * target, min=0.0).mean(dim=1)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randint(0, 2, (BATCH, DIM)).float() * 2.0 - 1.0]


def get_init_inputs():
    return []

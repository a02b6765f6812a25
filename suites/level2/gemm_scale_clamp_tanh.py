"""Matrix product with a weight matrix, scaling, clamping to [-1.5, 1.5], then tanh."""
import torch
import torch.nn as nn

BATCH = 512
IN_FEATURES = 256
OUT_FEATURES = 512

SCALE = 1.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features) / in_features ** 0.5)
        self.scale = scale

    def forward(self, x):
        return torch.tanh(torch.clamp(torch.matmul(x, self.weight) * self.scale, -1.5, 1.5))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALE]

"""Linear layer, then scaling by a constant, then log-softmax over the features."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 512
OUT_FEATURES = 512

SCALE = 3.0


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return torch.log_softmax(self.linear(x) * self.scale, dim=1)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALE]

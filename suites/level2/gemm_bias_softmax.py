"""Linear layer, then a learned bias, then softmax over 64 classes."""
import torch
import torch.nn as nn

BATCH = 2048
IN_FEATURES = 512
OUT_FEATURES = 64


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(0.5 * torch.randn(out_features))

    def forward(self, x):
        return torch.softmax(self.linear(x) + self.bias, dim=1)


def get_inputs():
    return [2.0 * torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

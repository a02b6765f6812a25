"""Linear layer, then sigmoid, then a sum over the features (one value per row)."""
import torch
import torch.nn as nn

BATCH = 128
IN_FEATURES = 1024
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.sum(torch.sigmoid(self.linear(x)), dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES) + 2.0 * torch.randn(BATCH, 1)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

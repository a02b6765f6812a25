"""Linear layer, then HardTanh, then the mean over the features (one value per row), then GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 128
IN_FEATURES = 1024
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = F.hardtanh(self.linear(x), -0.5, 0.5)
        return F.gelu(torch.mean(y, dim=1, keepdim=True))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES) + 2.0 * torch.randn(BATCH, 1)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

"""Linear layer, then LayerNorm over the features, then GELU."""
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
        self.norm = nn.LayerNorm(out_features)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.3 * torch.randn(out_features))
            self.norm.bias.copy_(0.3 * torch.randn(out_features))

    def forward(self, x):
        return F.gelu(self.norm(self.linear(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

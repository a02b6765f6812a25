"""Linear layer, plus a residual connection, then LayerNorm (a post-norm sublayer)."""
import torch
import torch.nn as nn

BATCH = 256
FEATURES = 512


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.linear = nn.Linear(features, features)
        self.norm = nn.LayerNorm(features)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.3 * torch.randn(features))
            self.norm.bias.copy_(0.3 * torch.randn(features))

    def forward(self, x):
        return self.norm(x + self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, FEATURES) + 0.5]


def get_init_inputs():
    return [FEATURES]

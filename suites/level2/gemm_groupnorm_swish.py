"""Linear layer, then GroupNorm (16 groups) over the features, then Swish."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 512
OUT_FEATURES = 512

GROUPS = 16


class Model(nn.Module):
    def __init__(self, in_features, out_features, groups):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(groups, out_features)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.3 * torch.randn(out_features))
            self.norm.bias.copy_(0.3 * torch.randn(out_features))

    def forward(self, x):
        y = self.norm(self.linear(x))
        return y * torch.sigmoid(y)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, GROUPS]

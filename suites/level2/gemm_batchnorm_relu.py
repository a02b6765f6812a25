"""Linear layer, then BatchNorm1d in inference mode, then ReLU."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 512
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.3 * torch.randn(out_features))
            self.bn.bias.copy_(0.3 * torch.randn(out_features))
            self.bn.running_mean.copy_(0.2 * torch.randn(out_features))
            self.bn.running_var.copy_(0.1 + 0.5 * torch.rand(out_features))

    def forward(self, x):
        return torch.relu(self.bn(self.linear(x)))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]

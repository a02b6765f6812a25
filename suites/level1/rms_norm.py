"""RMSNorm over the last dimension with a learned scale: x / sqrt(mean(x^2) + eps) * weight."""
import torch
import torch.nn as nn

BATCH = 32
SEQ = 512
FEATURES = 256


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.eps = 1e-6
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(features))

    def forward(self, x):
        rms = torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)
        return x * rms * self.weight


def get_inputs():
    return [3.0 * torch.randn(BATCH, SEQ, FEATURES)]


def get_init_inputs():
    return [FEATURES]

"""LayerNorm over the last dimension (learned affine) of a (batch, seq, features) tensor."""
import torch
import torch.nn as nn

BATCH = 32
SEQ = 512
FEATURES = 256


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)
        with torch.no_grad():
            self.ln.weight.copy_(1.0 + 0.5 * torch.randn(features))
            self.ln.bias.copy_(0.5 * torch.randn(features))

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [2.0 * torch.randn(BATCH, SEQ, FEATURES) + 0.5]


def get_init_inputs():
    return [FEATURES]

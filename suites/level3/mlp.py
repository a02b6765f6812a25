"""Three-layer perceptron (Linear-ReLU-Linear-ReLU-Linear) mapping feature vectors to logits."""
import torch
import torch.nn as nn

BATCH = 128
IN_FEATURES = 512
HIDDEN = 512
OUT_FEATURES = 128


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, out_features),
        )

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, HIDDEN, OUT_FEATURES]

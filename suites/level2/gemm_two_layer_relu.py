"""Two linear layers with a ReLU between, then scaling by 4 and a sigmoid (a small MLP head)."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 512
HIDDEN = 256
OUT_FEATURES = 128


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x))) * 4.0)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, HIDDEN, OUT_FEATURES]

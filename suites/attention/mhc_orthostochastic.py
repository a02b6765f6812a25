"""Orthostochastic projection: squared entries of the polar (orthogonal) factor of each 8x8 matrix, by 12 Newton-Schulz steps."""
import torch
import torch.nn as nn

MATRICES = 2048
N = 8
STEPS = 12


class Model(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.steps = steps

    def forward(self, m):
        # Scaled so every singular value is <= 1; X <- 1.5 X - 0.5 X X^T X drives them to 1.
        x = m / torch.sqrt(torch.sum(m * m, dim=(-2, -1), keepdim=True))
        for _ in range(self.steps):
            x = 1.5 * x - 0.5 * torch.matmul(torch.matmul(x, x.transpose(-2, -1)), x)
        return x * x  # rows and columns of an orthogonal matrix squared sum to 1


def get_inputs():
    # well-conditioned matrices (identity plus noise) so 12 steps converge
    return [torch.eye(N) + 0.5 * torch.randn(MATRICES, N, N)]


def get_init_inputs():
    return [STEPS]

"""One manifold-constrained hyper-connection (mHC) step: dynamic pre/post/residual stream mappings, Sinkhorn-projected residual mixing, a GELU layer."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 2048
STREAMS = 4
CHANNELS = 128
SINKHORN_ITERATIONS = 20


class Model(nn.Module):
    def __init__(self, streams, channels, iterations):
        super().__init__()
        self.n = streams
        self.iterations = iterations
        width = streams * channels
        self.norm_weight = nn.Parameter(1.0 + 0.1 * torch.randn(width))
        # one projection produces the n pre, n post and n*n residual coefficients
        self.phi = nn.Parameter(torch.randn(width, 2 * streams + streams * streams) / width ** 0.5)
        self.alpha = nn.Parameter(torch.tensor([1.0, 1.0, 1.0]))
        self.bias = nn.Parameter(0.1 * torch.randn(2 * streams + streams * streams))
        self.layer = nn.Linear(channels, channels)

    def forward(self, x):
        # x: (T, n, C) residual streams
        t = x.shape[0]
        n = self.n
        flat = x.reshape(t, -1)
        flat = flat * torch.rsqrt(torch.mean(flat * flat, dim=-1, keepdim=True) + 1e-6) * self.norm_weight
        c = torch.matmul(flat, self.phi)
        h_pre = torch.sigmoid(self.alpha[0] * c[:, :n] + self.bias[:n])                  # (T, n)
        h_post = 2.0 * torch.sigmoid(self.alpha[1] * c[:, n:2 * n] + self.bias[n:2 * n])  # (T, n)
        logits = (self.alpha[2] * c[:, 2 * n:] + self.bias[2 * n:]).reshape(t, n, n)
        h_res = torch.exp(logits - logits.amax(dim=(-2, -1), keepdim=True))
        for _ in range(self.iterations):
            h_res = h_res / h_res.sum(dim=-1, keepdim=True)
            h_res = h_res / h_res.sum(dim=-2, keepdim=True)
        layer_in = torch.matmul(h_pre.unsqueeze(1), x).squeeze(1)                         # (T, C)
        layer_out = F.gelu(self.layer(layer_in))
        return torch.matmul(h_res, x) + h_post.unsqueeze(-1) * layer_out.unsqueeze(1)


def get_inputs():
    return [torch.randn(TOKENS, STREAMS, CHANNELS)]


def get_init_inputs():
    return [STREAMS, CHANNELS, SINKHORN_ITERATIONS]

"""A task whose real forward takes 30 s (not on the meta device, so describing it is quick):
with a tiny oracle.timeout_s its reference times out and the run must skip it."""
import time

import torch
import torch.nn as nn

N = 64


class Model(nn.Module):
    def forward(self, x):
        if not x.is_meta:
            time.sleep(30)
        return x * 2


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []

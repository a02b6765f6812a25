"""Two-level U-Net: conv encoder with max pooling, bottleneck, transposed-conv decoder with skip concatenation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
IN_CHANNELS = 3
BASE = 16
CLASSES = 4
HEIGHT = 64
WIDTH = 64


def _double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class Model(nn.Module):
    def __init__(self, in_channels, base, classes):
        super().__init__()
        self.enc1 = _double_conv(in_channels, base)
        self.enc2 = _double_conv(base, 2 * base)
        self.mid = _double_conv(2 * base, 4 * base)
        self.up2 = nn.ConvTranspose2d(4 * base, 2 * base, 2, stride=2)
        self.dec2 = _double_conv(4 * base, 2 * base)
        self.up1 = nn.ConvTranspose2d(2 * base, base, 2, stride=2)
        self.dec1 = _double_conv(2 * base, base)
        self.head = nn.Conv2d(base, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, BASE, CLASSES]

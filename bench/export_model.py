#!/usr/bin/env python3
"""Exports a small ResNet-like classifier as TorchScript, the way a user
deploys one (scripted in Python, saved, loaded in C++): the model that the
GPU check's frame-inference program and `torchlint-replay --model` run.
Needs only torch (no torchvision); the weights are seeded.

    export_model.py OUT.pt
"""
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.skip = nn.Sequential()
        if stride != 1 or inputs != outputs:
            self.skip = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                nn.BatchNorm2d(outputs))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.skip(x))


class SmallResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False),
                                  nn.BatchNorm2d(32), nn.ReLU())
        self.blocks = nn.Sequential(Block(32, 32, 1), Block(32, 64, 2),
                                    Block(64, 128, 2), Block(128, 256, 2))
        self.head = nn.Linear(256, classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean([2, 3]))


def main(out):
    torch.manual_seed(0)
    torch.jit.script(SmallResNet().eval()).save(out)
    print("exported", out)


if __name__ == "__main__":
    main(sys.argv[1])

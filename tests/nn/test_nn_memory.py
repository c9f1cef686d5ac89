"""Training steps do not leak: the graph of a step is gone once its loss is dropped, without help
from the cycle collector, and hundreds of steps leave the number of live graph nodes unchanged."""

import gc
import weakref

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.autograd.function import Node


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = self.pool(nn.functional.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(x.flatten(1)))


def live_nodes():
    gc.collect()
    return sum(1 for o in gc.get_objects() if Node in type(o).__mro__)


@pytest.fixture
def one_thread():
    """Tiny kernels on one thread: a parallel launch costs more than the work here."""
    before = nl.get_num_threads()
    nl.set_num_threads(1)
    yield
    nl.set_num_threads(before)


def test_hundreds_of_steps_leave_no_graph_behind(one_thread):
    net = SmallNet()
    opt = nl.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    x = nl.randn(2, 1, 8, 8)
    y = nl.tensor([0, 2])

    def step():
        opt.zero_grad()
        out = net(x)
        loss = criterion(out, y)
        loss.backward()
        opt.step()
        return weakref.ref(loss.grad_fn), weakref.ref(out.grad_fn)

    for _ in range(10):
        step()
    baseline = live_nodes()
    gc.disable()
    try:
        # a node kept per step would leave 200 behind, over the baseline
        for i in range(200):
            refs = step()
            if i % 20 == 0:
                # freed by reference counting alone: the graph holds no reference cycle
                assert all(r() is None for r in refs)
    finally:
        gc.enable()
    assert live_nodes() <= baseline
    assert np.isfinite(net.fc.weight.detach().numpy()).all()


def test_eval_under_no_grad_builds_no_graph():
    net = SmallNet().eval()
    with nl.no_grad():
        out = net(nl.randn(2, 1, 8, 8))
    assert out.grad_fn is None and not out.requires_grad

"""The neural-networks tutorial (60 Minute Blitz) end to end, with nnlite in place of torch."""

import copy

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn as nn
import nnlite.nn.functional as F
from nnlite.models import Net

# the notebook's ``print(net)`` output
NET_TEXT = """Net(
  (conv1): Conv2d(1, 6, kernel_size=(3, 3), stride=(1, 1))
  (conv2): Conv2d(6, 16, kernel_size=(3, 3), stride=(1, 1))
  (fc1): Linear(in_features=576, out_features=120, bias=True)
  (fc2): Linear(in_features=120, out_features=84, bias=True)
  (fc3): Linear(in_features=84, out_features=10, bias=True)
)"""


class TutorialNet(nn.Module):
    """The tutorial's class, written as a user writes it."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 6 * 6, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


@pytest.fixture(params=[TutorialNet, Net], ids=["user_class", "models.Net"])
def net(request):
    return request.param()


def test_print_net(net, capsys):
    print(net)
    assert capsys.readouterr().out == NET_TEXT.replace("Net(", type(net).__name__ + "(", 1) + "\n"
    assert str(Net()) == NET_TEXT


def test_parameters(net):
    params = list(net.parameters())
    assert len(params) == 10
    assert params[0].size() == (6, 1, 3, 3)
    assert repr(params[0].size()) == "nnlite.Size([6, 1, 3, 3])"


def test_forward_and_backward_with_random_gradient(net):
    input = nl.randn(1, 1, 32, 32)
    out = net(input)
    assert out.shape == (1, 10)
    assert repr(out).endswith("grad_fn=<AddmmBackward0>)")
    net.zero_grad()
    out.backward(nl.randn(1, 10))
    assert all(p.grad is not None and p.grad.shape == p.shape for p in net.parameters())


def test_loss_and_graph_walk(net):
    input = nl.randn(1, 1, 32, 32)
    output = net(input)
    target = nl.randn(10)
    target = target.view(1, -1)
    criterion = nn.MSELoss()
    loss = criterion(output, target)
    assert repr(loss).startswith("tensor(") and repr(loss).endswith(", grad_fn=<MseLossBackward0>)")
    assert np.isclose(loss.item(), ((output.detach().numpy() - target.numpy()) ** 2).mean())
    assert loss.grad_fn.name() == "MseLossBackward0"
    linear = loss.grad_fn.next_functions[0][0]
    assert linear.name() == "AddmmBackward0"
    assert linear.next_functions[0][0].name() == "AccumulateGrad"  # fc3's bias, as in the notebook
    assert linear.next_functions[0][0].variable is net.fc3.bias
    assert linear.next_functions[1][0].name() == "ReluBackward0"
    assert str(loss.grad_fn).startswith("<MseLossBackward0 object at 0x")


def test_conv1_bias_grad_before_and_after_backward(net):
    input = nl.randn(1, 1, 32, 32)
    loss = nn.MSELoss()(net(input), nl.randn(1, 10))
    net.zero_grad()
    assert net.conv1.bias.grad is None
    loss.backward()
    g = net.conv1.bias.grad
    assert g is not None and g.shape == (6,) and np.abs(g.numpy()).sum() > 0
    assert repr(g).startswith("tensor([")


def test_manual_update_equals_sgd_step(net):
    optim = pytest.importorskip("nnlite.optim", reason="nnlite.optim is not there yet")
    if not hasattr(optim, "SGD"):
        pytest.skip("nnlite.optim.SGD is not there yet")
    other = copy.deepcopy(net)
    input, target = nl.randn(1, 1, 32, 32), nl.randn(1, 10)
    criterion = nn.MSELoss()

    learning_rate = 0.01
    criterion(net(input), target).backward()
    for f in net.parameters():
        f.data.sub_(f.grad.data * learning_rate)

    optimizer = optim.SGD(other.parameters(), lr=0.01)
    optimizer.zero_grad()
    output = other(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    for (name, a), b in zip(net.named_parameters(), other.parameters()):
        np.testing.assert_allclose(
            a.detach().numpy(), b.detach().numpy(), rtol=0, atol=1e-7, err_msg=name
        )


def test_against_torch_on_identical_weights():
    torch = pytest.importorskip("torch")
    tnn, TF = torch.nn, torch.nn.functional

    class T(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(1, 6, 3)
            self.conv2 = tnn.Conv2d(6, 16, 3)
            self.fc1 = tnn.Linear(16 * 6 * 6, 120)
            self.fc2 = tnn.Linear(120, 84)
            self.fc3 = tnn.Linear(84, 10)

        def forward(self, x):
            x = TF.max_pool2d(TF.relu(self.conv1(x)), (2, 2))
            x = TF.max_pool2d(TF.relu(self.conv2(x)), 2)
            x = x.view(-1, 576)
            return self.fc3(TF.relu(self.fc2(TF.relu(self.fc1(x)))))

    ours, theirs = Net(), T()
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    assert repr(ours) == repr(theirs).replace("T(", "Net(", 1)
    x = np.random.default_rng(0).standard_normal((2, 1, 32, 32)).astype(np.float32)
    t = np.random.default_rng(1).standard_normal((2, 10)).astype(np.float32)
    la = nn.MSELoss()(ours(nl.tensor(x)), nl.tensor(t))
    lb = tnn.MSELoss()(theirs(torch.tensor(x)), torch.tensor(t))
    np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-5)
    la.backward()
    lb.backward()
    for (name, a), b in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            a.grad.numpy(), b.grad.numpy(), rtol=1e-3, atol=1e-6, err_msg=name
        )

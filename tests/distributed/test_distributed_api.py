"""nnlite.distributed without an MPI job: PyTorch's names and errors before init_process_group,
the arguments refused before MPI starts, the launcher's command line, and that importing it
never loads MPI. (The collectives themselves run under MPI in test_distributed_launch.py.)"""

import importlib.util
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

import nnlite as nl
import nnlite.distributed as dist
from nnlite.distributed import run as launcher

NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


def test_import_loads_no_mpi():
    code = "import sys, nnlite, nnlite.distributed, nnlite.distributed.run\n"
    code += "assert 'mpi4py' not in sys.modules, sorted(m for m in sys.modules if 'mpi' in m)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "call",
    [
        lambda: dist.get_rank(),
        lambda: dist.get_world_size(),
        lambda: dist.get_backend(),
        lambda: dist.barrier(),
        lambda: dist.all_reduce(nl.ones(2)),
        lambda: dist.broadcast(nl.ones(2), src=0),
        lambda: dist.all_gather([nl.ones(2)], nl.ones(2)),
        lambda: dist.send(nl.ones(1), dst=1),
        lambda: dist.all_gather_object([None], 1),
        lambda: dist.broadcast_object_list([1], src=0),
        lambda: dist.new_group([0]),
        lambda: dist.destroy_process_group(),
    ],
)
def test_before_init_pytorchs_error(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == NOT_INITIALIZED


def test_pytorch_comparison_of_the_not_initialized_error():
    torch = pytest.importorskip("torch", reason="torch is the oracle for the error text")
    with pytest.raises(ValueError) as expected:
        torch.distributed.get_rank()
    assert str(expected.value) == NOT_INITIALIZED
    with pytest.raises(ValueError) as expected:
        torch.distributed.all_reduce(torch.ones(2))
    assert str(expected.value) == NOT_INITIALIZED


def test_reduce_op_and_backend_names_match_pytorch():
    torch = pytest.importorskip("torch", reason="torch is the oracle for the names")
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"):
        assert repr(getattr(dist.ReduceOp, name)) == repr(getattr(torch.distributed.ReduceOp, name))
    for name in ("gloo", "GLOO", "mpi", "nccl", "other"):
        assert dist.Backend(name) == torch.distributed.Backend(name)
    assert dist.default_pg_timeout == torch.distributed.default_pg_timeout == timedelta(minutes=30)


def test_arguments_refused_before_mpi_starts():
    with pytest.raises(RuntimeError, match="^Distributed package doesn't have NCCL built in$"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="Invalid backend: 'ucc'"):
        dist.init_process_group("ucc")
    with pytest.raises(AssertionError, match="^Cannot specify both init_method and store.$"):
        dist.init_process_group("gloo", init_method="env://", store=object())
    with pytest.raises(ValueError, match="a store is not supported; MPI brings the ranks together"):
        dist.init_process_group("gloo", store=object())
    with pytest.raises(TypeError) as info:
        dist.init_process_group("gloo", timeout=5)
    assert str(info.value) == "Expected timeout argument to be of type datetime.timedelta, got 5"
    assert not dist.is_initialized()


def test_availability():
    assert dist.is_nccl_available() is False
    assert dist.is_available() == dist.is_gloo_available() == dist.is_mpi_available()
    assert dist.GroupMember.WORLD is None and dist.group.WORLD is None


def test_collective_arguments_are_checked_like_pytorchs():
    with pytest.raises(TypeError, match="Expected parameter `tensor` of type torch.Tensor"):
        dist.all_reduce([1.0, 2.0])
    with pytest.raises(
        TypeError, match=r"Expected parameter `tensor_list` of type List\[torch.Tensor\]"
    ):
        dist.all_gather(nl.ones(2), nl.ones(2))


def test_launcher_accepts_torchruns_flags_in_both_spellings():
    dashed = launcher.parse_args(
        [
            "--nproc-per-node=3",
            "--nnodes=1",
            "--node-rank=0",
            "--master-addr=10.0.0.1",
            "--master-port=1234",
            "train.py",
            "--lr",
            "0.1",
        ]
    )
    underscored = launcher.parse_args(
        [
            "--nproc_per_node=3",
            "--nnodes=1",
            "--node_rank=0",
            "--master_addr=10.0.0.1",
            "--master_port=1234",
            "train.py",
            "--lr",
            "0.1",
        ]
    )
    assert vars(dashed) == vars(underscored)
    assert (dashed.nproc_per_node, dashed.master_addr, dashed.master_port) == (
        "3",
        "10.0.0.1",
        1234,
    )
    assert dashed.training_script == "train.py"
    assert dashed.training_script_args == ["--lr", "0.1"]
    assert launcher.parse_args(["--standalone", "x.py"]).standalone


def test_launcher_refuses_what_it_cannot_do(capsys):
    with pytest.raises(SystemExit) as ex:
        launcher.main(["--nnodes=2", "x.py"])
    assert ex.value.code == 2
    assert "--nnodes=2 needs --hostfile FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ex:
        launcher.main(["--nnodes=1:4", "x.py"])
    assert "an elastic range is not supported" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ex:
        launcher.main(["--nnodes=2", "--node-rank=1", "x.py"])
    assert ex.value.code == 0  # node 0's launcher starts this machine's ranks
    assert "nothing to start here" in capsys.readouterr().err


def test_public_api_has_pytorch_shaped_docstrings(monkeypatch):
    """tests/test_docstrings.py's check, on nnlite.distributed."""
    path = Path(__file__).resolve().parents[1] / "test_docstrings.py"
    spec = importlib.util.spec_from_file_location("docstring_checks", path)
    checks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(checks)
    monkeypatch.setattr(checks, "PUBLIC_MODULES", ("nnlite.distributed",))
    found = checks.public_objects()
    assert "nnlite.distributed.collectives.all_reduce" in found
    problems = {name: checks.docstring_problems(obj, kind) for name, (obj, kind) in found.items()}
    assert {name: p for name, p in problems.items() if p} == {}

"""What a training run costs beyond its epochs: evaluation, checkpoints, the run page, start-up.

Runs ``python train.py configs/lenet_fashion_mnist.yaml --set epochs=N`` (the README's command)
and prints its wall time, the sum of the epochs' ``epoch_seconds`` (training only, from the run's
``metrics.jsonl``), their ratio and issue 26's budget (wall at most 1.25x the epochs plus 3 s of
start-up). The machine may be shared, so wall time is noisy; CPU seconds are not: the run is the
same command in a child process that also counts the CPU time of its training loops, and prints
the CPU time spent outside them, in the training process and in the processes it waited for (the
page writer).

Usage: python benchmarks/run_overhead.py [--epochs 3] [--root /usr/share/datasets/fashion-mnist]
           [--config configs/lenet_fashion_mnist.yaml] [--set key=value ...] [--load N]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import machine_facts  # noqa: E402  (benchmarks/machine_facts.py)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
START_UP_SECONDS = 3.0
BUDGET_FACTOR = 1.25


def _cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def child(result_path, argv):
    """``train.py argv`` in this process, counting the CPU time of each epoch's training loop
    (from the start of ``_run_epoch`` to its evaluation); the figures go to ``result_path``."""
    sys.path.insert(0, REPO)
    from nnlite.report import TrainingObserver
    from nnlite.train import trainer
    from nnlite.train.cli import main as train_main

    loops = []
    run_epoch, evaluate = trainer.Trainer._run_epoch, trainer.Trainer._evaluate

    def timed_run_epoch(self, epoch):
        self._bench_start = time.process_time()
        return run_epoch(self, epoch)

    def timed_evaluate(self, epoch=None):
        start = getattr(self, "_bench_start", None)
        if start is not None:
            loops.append(time.process_time() - start)
            self._bench_start = None
        return evaluate(self, epoch)

    trainer.Trainer._run_epoch, trainer.Trainer._evaluate = timed_run_epoch, timed_evaluate
    code = train_main(argv, observers=[TrainingObserver()])
    figures = {
        "loops_cpu": loops,
        "self_cpu": _cpu(resource.RUSAGE_SELF),
        "children_cpu": _cpu(resource.RUSAGE_CHILDREN),
    }
    with open(result_path, "w", encoding="utf-8") as f:
        json.dump(figures, f)
    return code


def run(config, root, epochs, overrides):
    """Train once; returns (wall seconds, CPU figures, per-epoch metrics records)."""
    with tempfile.TemporaryDirectory() as out:
        argv = [config]
        for setting in [
            f"data.root={root}",
            "data.download=false",
            f"epochs={epochs}",
            f"output_dir={out}",
            *overrides,
        ]:
            argv += ["--set", setting]
        result = os.path.join(out, "cpu.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", result, "--", *argv]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        with open(result, encoding="utf-8") as f:
            cpu = json.load(f)
        (latest,) = [d for d in os.listdir(out) if d.endswith("-latest")]
        with open(os.path.join(out, latest, "metrics.jsonl"), encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
    return wall, cpu, [r for r in records if "epoch_seconds" in r]


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--child" and sys.argv[3] == "--":
        return child(sys.argv[2], sys.argv[4:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--root", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument(
        "--config", default=os.path.join(REPO, "configs", "lenet_fashion_mnist.yaml")
    )
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    machine_facts.add_load_option(parser)
    args = parser.parse_args()
    machine_facts.setup(args)

    wall, cpu, epochs = run(args.config, args.root, args.epochs, args.set)
    epoch_seconds = sum(r["epoch_seconds"] for r in epochs)
    eval_seconds = sum(r.get("eval_seconds", 0.0) for r in epochs)
    budget = BUDGET_FACTOR * epoch_seconds + START_UP_SECONDS
    each = ", ".join(f"{r['epoch_seconds']:.1f}" for r in epochs)
    print(f"epochs: {len(epochs)} ({each} s)")
    print(f"wall: {wall:.1f} s")
    print(
        f"sum of epoch_seconds: {epoch_seconds:.1f} s (evaluation beside them: {eval_seconds:.1f} s)"
    )
    print(f"ratio wall / epochs: {wall / max(epoch_seconds, 1e-9):.3f}")
    print(
        f"budget ({BUDGET_FACTOR}x epochs + {START_UP_SECONDS:.0f} s): {budget:.1f} s, "
        f"{'met' if wall <= budget else 'missed'} by {abs(budget - wall):.1f} s"
    )
    loops = sum(cpu["loops_cpu"])
    outside = cpu["self_cpu"] - loops
    print(
        f"CPU: training loops {loops:.1f} s; outside them {outside + cpu['children_cpu']:.1f} s "
        f"(training process {outside:.1f} s, page writer {cpu['children_cpu']:.1f} s)"
    )
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    sys.exit(main())

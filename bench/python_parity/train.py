#!/usr/bin/env python3
"""The Python side of the race: an idiomatic PyTorch training loop for a speedbench config.

Reads the same TrainConfig JSON as `speedbench run-one` (the fields the race uses; any other
field set away from its default is refused, so the two sides never train different things),
builds the same model (models/resnet.cpp, models/recurrent.cpp) on the same data (the Debian
packages' Fashion-MNIST and fortunes), trains `max_steps` steps and prints one JSON line:
samples/s over the steps after `warmup_steps` (data fetch + forward + backward + step + the
loss read, as the harness times a step), and the test accuracy at the end.

Usage: train.py CONFIG.json
"""
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

FASHION_DIR = os.environ.get("SPEEDBENCH_FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")
FORTUNES_DIR = os.environ.get("SPEEDBENCH_FORTUNES_DIR", "/usr/share/games/fortunes")
TEXT_TEST_FRACTION = 0.1

# The techniques this loop implements, and the defaults every other one must keep.
SUPPORTED = {"amp", "optimizer_impl", "sync_avoidance", "sync_every_steps", "zero_grad_none",
             "host_to_tensor", "bn_no_bias", "eval_no_grad", "input_norm", "channels_last"}
DEFAULT_OFF = {"loader_workers": 0, "pin_memory": False, "cudnn_benchmark": False,
               "checkpointing": False, "grad_accumulation": 1, "ddp_world_size": 1,
               "debug_mode": "off", "grad_clipping": 0.0, "tf32": False, "cuda_graphs": False}


def fail(message):
    sys.exit(f"train.py: {message}")


# ---- config ---------------------------------------------------------------------------------

def load_config(path):
    with open(path) as f:
        c = json.load(f)
    data = {"dataset": "fashion_mnist", "train_samples": 0, "test_samples": 0, "augment": False,
            "sequence_length": 64, **c.get("data", {})}
    model = {"arch": "resnet", "depth": 8, "widths": [16, 32, 64], "cell": "lstm", "hidden": 128,
             "layers": 1, "embedding": 64, **c.get("model", {})}
    opt = {"name": "sgd", "lr": 0.05, "momentum": 0.9, "nesterov": False, "weight_decay": 0.0,
           "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, **c.get("optimizer", {})}
    tech = {"amp": "off", "optimizer_impl": "loop", "sync_avoidance": False, "sync_every_steps": 50,
            "zero_grad_none": False, "host_to_tensor": False, "bn_no_bias": False,
            "eval_no_grad": False, "input_norm": False, "channels_last": False,
            **c.get("techniques", {})}
    for key, off in DEFAULT_OFF.items():
        if tech.get(key, off) != off:
            fail(f"{path}: field 'techniques.{key}': the Python loop does not implement it; "
                 f"expected {off!r}")
    if tech.get("lr_schedule", {}).get("kind", "constant") != "constant":
        fail(f"{path}: field 'techniques.lr_schedule': only a constant LR is raced")
    if tech.get("max_batch", {}).get("enabled", False):
        fail(f"{path}: field 'techniques.max_batch': not raced")
    if data["augment"] or data["dataset"] not in ("fashion_mnist", "fortunes"):
        fail(f"{path}: field 'data': fashion_mnist or fortunes without augmentation")
    if data.get("on_device", False):
        fail(f"{path}: field 'data.on_device': the race builds host batches; expected false")
    if model.get("stem", "cifar") != "cifar":
        fail(f"{path}: field 'model.stem': the raced ResNet has the 3x3 stem; expected 'cifar'")
    if c.get("device", "cpu") != "cpu":
        fail(f"{path}: field 'device': the race runs on the CPU")
    run = {"batch_size": c.get("batch_size", 128), "max_steps": c.get("max_steps", 0),
           "warmup_steps": c.get("warmup_steps", 10), "eval_batch_size": c.get("eval_batch_size", 1000),
           "seed": c.get("seed", 0), "threads": c.get("threads", 2)}
    if run["max_steps"] <= 0:
        fail(f"{path}: field 'max_steps': the race needs a step count (> 0)")
    if run["warmup_steps"] >= run["max_steps"]:
        fail(f"{path}: field 'warmup_steps': got {run['warmup_steps']}, but the run trains "
             f"{run['max_steps']} steps: no step would be timed; expected fewer warmup steps than steps")
    return data, model, opt, tech, run


# ---- data -----------------------------------------------------------------------------------

def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def first(array, n):
    return array[:n] if n > 0 else array


def load_fashion(data):
    def split(prefix, n):
        images = first(read_idx(f"{FASHION_DIR}/{prefix}-images-idx3-ubyte.gz"), n)
        labels = first(read_idx(f"{FASHION_DIR}/{prefix}-labels-idx1-ubyte.gz"), n)
        return images[:, None, :, :].copy(), labels.astype(np.int64)
    train, test = split("train", data["train_samples"]), split("t10k", data["test_samples"])
    pixels = train[0].astype(np.float32) / 255.0
    return train, test, 10, (float(pixels.mean()), float(pixels.std(ddof=1)))


def load_fortunes(data):
    names = sorted(n for n in os.listdir(FORTUNES_DIR)
                   if "." not in n and os.path.isfile(os.path.join(FORTUNES_DIR, n))
                   and not os.path.islink(os.path.join(FORTUNES_DIR, n)))
    text = b"".join(open(os.path.join(FORTUNES_DIR, n), "rb").read() for n in names)
    present = sorted(set(text))
    id_of = np.full(256, -1, dtype=np.int64)
    id_of[present] = np.arange(len(present))
    ids = id_of[np.frombuffer(text, dtype=np.uint8)]
    train_chars = int(len(text) * (1.0 - TEXT_TEST_FRACTION))

    def windows(part, n):
        t = data["sequence_length"]
        count = (len(part) - 1) // t
        inputs = part[: count * t].reshape(count, t)
        targets = part[1: count * t + 1].reshape(count, t)
        return first(inputs, n).copy(), first(targets, n).copy()
    return (windows(ids[:train_chars], data["train_samples"]),
            windows(ids[train_chars:], data["test_samples"]), len(present), None)


# ---- models (the same layers, in the same order, as models/*.cpp) ----------------------------

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride, bias):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=bias)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=bias)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, 0, bias=bias), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, depth, widths, classes, bias, in_channels=1):
        super().__init__()
        if depth < 8 or (depth - 2) % 6:
            fail(f"resnet depth must be 6n+2, got {depth}")
        self.stem_conv = nn.Conv2d(in_channels, widths[0], 3, 1, 1, bias=bias)
        self.stem_bn = nn.BatchNorm2d(widths[0])
        blocks, channels = [], widths[0]
        for stage, width in enumerate(widths):
            for b in range((depth - 2) // 6):
                blocks.append(BasicBlock(channels, width, 2 if stage > 0 and b == 0 else 1, bias))
                channels = width
        self.blocks = nn.ModuleList(blocks)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        x = F.relu(self.stem_bn(self.stem_conv(x)))
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean((2, 3)))


def recurrent(cell, inputs, hidden, layers):
    return (nn.LSTM if cell == "lstm" else nn.GRU)(inputs, hidden, layers, batch_first=True)


class RowRnn(nn.Module):
    def __init__(self, m, classes):
        super().__init__()
        self.rnn = recurrent(m["cell"], 28, m["hidden"], m["layers"])
        self.head = nn.Linear(m["hidden"], classes)

    def forward(self, images):
        rows = images.permute(0, 2, 1, 3).flatten(2)
        return self.head(self.rnn(rows)[0][:, -1])


class CharLm(nn.Module):
    def __init__(self, m, vocabulary):
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, m["embedding"])
        self.rnn = recurrent(m["cell"], m["embedding"], m["hidden"], m["layers"])
        self.head = nn.Linear(m["hidden"], vocabulary)

    def forward(self, ids):
        return self.head(self.rnn(self.embedding(ids))[0])


def build_model(m, tech, classes):
    if m["arch"] == "resnet":
        return ResNet(m["depth"], m["widths"], classes, bias=not tech["bn_no_bias"])
    if m["arch"] == "row_rnn":
        return RowRnn(m, classes)
    if m["arch"] == "char_lm":
        return CharLm(m, classes)
    fail(f"model.arch {m['arch']!r} is not raced")


def build_optimizer(o, impl, params):
    flags = {"foreach": impl == "foreach", "fused": impl == "fused"}
    if impl == "loop":
        flags = {"foreach": False}
    if o["name"] == "sgd":
        return torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], nesterov=o["nesterov"],
                               weight_decay=o["weight_decay"], **flags)
    cls = torch.optim.Adam if o["name"] == "adam" else torch.optim.AdamW
    return cls(params, lr=o["lr"], betas=(o["beta1"], o["beta2"]), eps=o["eps"],
               weight_decay=o["weight_decay"], **flags)


# ---- the loop -------------------------------------------------------------------------------

def main():
    if len(sys.argv) != 2:
        fail("usage: train.py CONFIG.json")
    data, m, o, tech, run = load_config(sys.argv[1])
    torch.set_num_threads(run["threads"])
    torch.manual_seed(run["seed"])
    images = data["dataset"] == "fashion_mnist"
    train, test, classes, stats = (load_fashion if images else load_fortunes)(data)

    def to_inputs(array):
        # Host batch -> tensor: copied (torch.tensor) or wrapped (torch.as_tensor, tip 12).
        x = torch.as_tensor(array) if tech["host_to_tensor"] else torch.tensor(array)
        if not images:
            return x
        x = x.float().div_(255.0)
        if tech["input_norm"]:
            x = x.sub_(stats[0]).div_(stats[1])
        return x.contiguous(memory_format=torch.channels_last) if tech["channels_last"] else x

    model = build_model(m, tech, classes)
    if tech["channels_last"]:
        model = model.to(memory_format=torch.channels_last)
    model.train()
    optimizer = build_optimizer(o, tech["optimizer_impl"], model.parameters())
    autocast = tech["amp"] == "bf16"
    read_every = tech["sync_every_steps"] if tech["sync_avoidance"] else 1

    batch = run["batch_size"]
    generator = np.random.default_rng(run["seed"])
    order = generator.permutation(len(train[0]))
    position, losses, pending = 0, [], []
    timed_s, timed_samples = 0.0, 0
    for step in range(run["max_steps"]):
        start = time.perf_counter()
        if position + batch > len(order):
            order, position = generator.permutation(len(train[0])), 0
        rows = order[position: position + batch]
        position += batch
        x, y = to_inputs(train[0][rows]), torch.as_tensor(train[1][rows])
        optimizer.zero_grad(set_to_none=tech["zero_grad_none"])
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        loss.backward()
        optimizer.step()
        pending.append(loss.detach())
        if len(pending) == read_every:  # the loss read: every step, or every N (tip 7)
            losses.extend(torch.stack(pending).tolist())
            pending = []
        if step >= run["warmup_steps"]:
            timed_s += time.perf_counter() - start
            timed_samples += len(rows)
    if pending:
        losses.extend(torch.stack(pending).tolist())

    model.eval()
    correct, total = 0, 0
    with torch.no_grad() if tech["eval_no_grad"] else torch.enable_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            for begin in range(0, len(test[0]), run["eval_batch_size"]):
                x = to_inputs(test[0][begin: begin + run["eval_batch_size"]])
                y = torch.as_tensor(test[1][begin: begin + run["eval_batch_size"]])
                predicted = model(x).argmax(-1)
                correct += int((predicted == y).sum())
                total += y.numel()
    print(json.dumps({"samples_per_s": timed_samples / timed_s if timed_s > 0 else 0.0,
                      "steps": run["max_steps"], "final_train_loss": losses[-1],
                      "test_accuracy": correct / total, "torch": torch.__version__,
                      "finite": all(math.isfinite(v) for v in losses)}))


if __name__ == "__main__":
    main()

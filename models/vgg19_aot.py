"""VGG19's forward pass as an ahead-of-time entry point (models/bench_aot.py
builds and times it):

    tpucc build models/vgg19_aot.py --out build/     # -> build/classify.tpucc/

The model is a module global, so its weights are captured arrays: the
artifact stores them in weights.bin, memory-mapped at load.  BATCH and SIZE
come from TPUCC_VGG_BATCH / TPUCC_VGG_SIZE (default 1 and 224).
"""
from __future__ import annotations

import os

from tpucc.aot import entry
from vgg19 import VGG19

BATCH = int(os.environ.get("TPUCC_VGG_BATCH", "1"))
SIZE = int(os.environ.get("TPUCC_VGG_SIZE", "224"))
MODEL = VGG19(image_size=SIZE, seed=0)


@entry(f"f32[{BATCH},3,{SIZE},{SIZE}]")
def classify(x):
    return MODEL.forward(x)

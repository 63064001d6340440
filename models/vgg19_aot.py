"""VGG19's forward pass as an ahead-of-time entry point (models/bench_aot.py
builds and times it):

    tpucc build models/vgg19_aot.py --out build/     # -> build/classify.tpucc/

The model is a module global, so its weights are captured arrays: the
artifact stores them in weights.bin, memory-mapped at load.  BATCH and SIZE
come from TPUCC_VGG_BATCH / TPUCC_VGG_SIZE (default 1 and 224).

Test hooks (tests/test_demo.py runs bench_aot.py on a tiny model; unset, the
model is the real VGG19): TPUCC_VGG_CONFIG, the convolutions and pools as a
comma list ("8,M,16,M,M,M,M"; default vgg19.CONFIG_E), and TPUCC_VGG_HIDDEN /
TPUCC_VGG_CLASSES (default 4096 and 1000).
"""
from __future__ import annotations

import os

from tpucc.aot import entry
import vgg19
from vgg19 import VGG19

BATCH = int(os.environ.get("TPUCC_VGG_BATCH", "1"))
SIZE = int(os.environ.get("TPUCC_VGG_SIZE", "224"))
if os.environ.get("TPUCC_VGG_CONFIG"):
    vgg19.CONFIG_E = [v if v == "M" else int(v)
                      for v in os.environ["TPUCC_VGG_CONFIG"].split(",")]
MODEL = VGG19(image_size=SIZE, seed=0, hidden=int(os.environ.get("TPUCC_VGG_HIDDEN", "4096")),
              num_classes=int(os.environ.get("TPUCC_VGG_CLASSES", "1000")))


@entry(f"f32[{BATCH},3,{SIZE},{SIZE}]")
def classify(x):
    return MODEL.forward(x)

"""tpucc.aot: ahead-of-time builds.

    from tpucc.aot import entry          # in a model file
    @entry("f32[8,4]")
    def predict(x): ...

    $ tpucc build model.py --out build/ --target cpu --target tpu-v5e:2x2
    f = tpucc.load("build/predict.tpucc"); f(x)

Pipeline: model file -> entries (entry.py) -> example arguments from specs
(spec.py) -> tpucc.compile(...).lower -> jax.export for every target's
platform + one serialized executable per target that can be compiled here
(targets.py) + manifest.json (build.py) -> load / call (load.py).  The
manifest is JSON, its structures are described in tree.py.
"""
from .build import Built, Progress, build_entry, build_file, load_model
from .entry import EntryPoint, entry, find_entries
from .errors import ArgumentError, ArtifactError, BuildError
from .load import FallbackWarning, LoadedEntry, load, read_manifest
from .targets import Target

__all__ = ["entry", "load", "build_file", "build_entry", "load_model", "find_entries",
           "read_manifest", "EntryPoint", "LoadedEntry", "Built", "Progress", "Target",
           "BuildError", "ArtifactError", "ArgumentError", "FallbackWarning"]

"""Errors of ahead-of-time builds and artifacts.  Each is a TpuccError, so
the CLI prints it as one message (code, text, location, hint) and exits 1."""
from __future__ import annotations

from ..errors import TpuccError


class BuildError(TpuccError):
    """A model file, entry declaration or spec that cannot be built."""
    code = "E800"


class ArtifactError(TpuccError):
    """An artifact directory that is missing, truncated, corrupted or from an
    incompatible tpucc."""
    code = "E810"


class ArgumentError(TpuccError):
    """Arguments given to a loaded artifact that do not match its entry's
    input types and structure (a loaded artifact cannot recompile)."""
    code = "E820"

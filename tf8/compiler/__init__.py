"""The compiler: traced outputs → CompiledGraph (SemanticProgram + bindings + fingerprint)."""

from .compiler import CompiledGraph, GraphCompiler
from .program import SemanticFingerprint, SemanticInstruction, SemanticProgram

__all__ = [
    "CompiledGraph",
    "GraphCompiler",
    "SemanticFingerprint",
    "SemanticInstruction",
    "SemanticProgram",
]

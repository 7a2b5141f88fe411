"""The runtime: CompiledGraph → Prepared (lowered, optimised, code-generated) → numpy arrays."""

from .engine import Engine, NumpyEngine
from .exec_program import ExecInstruction, ExecProgram
from .passes import PassStats
from .runtime import Prepared, Runtime

__all__ = [
    "Engine",
    "ExecInstruction",
    "ExecProgram",
    "NumpyEngine",
    "PassStats",
    "Prepared",
    "Runtime",
]

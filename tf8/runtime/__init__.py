"""The runtime: CompiledGraph → Prepared (lowered, optimised, placed on engines, generated) →
numpy arrays."""

from .engines import Engine, get_engine
from .engines.numpy import NumpyEngine
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
    "get_engine",
]

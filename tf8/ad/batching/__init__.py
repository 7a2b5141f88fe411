"""vmap and the batching rules it runs on (one rule table on the one interpreter)."""

from .interpreter import BATCHING, batch_graph, register_batching_rule, unregister_batching_rule
from .vmap import vmap

__all__ = [
    "BATCHING",
    "batch_graph",
    "register_batching_rule",
    "unregister_batching_rule",
    "vmap",
]

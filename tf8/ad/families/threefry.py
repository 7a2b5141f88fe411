"""AD rule of the Threefry-2x32 hash: its outputs are uint32 bits, so no tangent reaches
them (a zero rule, as the bit primitives' `zero_rule`)."""

from __future__ import annotations

from tf8.ops.extension.threefry import Threefry2x32

from ..jvp_rules import JvpRule, zero_rule

JVP_RULES: dict[type, JvpRule] = {Threefry2x32: zero_rule}

"""The differences from JAX that tf8 keeps on purpose: one row per difference, each with the
design choice that makes it (named in DESIGN or README) and what checks that it still holds.
README's "Differences from JAX" section lists these rows (`python tests/conformance/deliberate.py`
rewrites it); test_replay checks that README shows the table as it is, and test_deliberate
that every row names a reason and a check that exists.

A row is one of two kinds:
- a *corpus* row (`corpus(...)`): its `name`, `signature` and `path` are fnmatch patterns over
  a conformance mismatch's function (`numpy.sin`), arguments (`float32[3], py-int`) and path
  (`eager`, `jit`, `vmap`, `jvp`, ...); the replay checks that it still matches a mismatch;
- an *API* row (`api(...)`): a behaviour the corpus does not record, checked by the test that
  `test` names (`tests/<file>.py::test_name`).
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

if __package__:
    from . import kept
    from .rows import Row, api
else:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from conformance import kept
    from conformance.rows import Row, api


DELIBERATE: list[Row] = [
    *kept.ROWS,
    # --- transforms ---------------------------------------------------------------------------
    api(
        "A function whose `grad` the tape hands to the graph path runs twice.",
        "tests/ad/test_run_once.py::test_a_function_that_records_inside_grad_runs_twice",
        "JAX runs it once. That is now only a function using `tf8.recording()` inside "
        "`grad`/`jvp`, or reaching an op that cannot run op by op (a size known only at run "
        "time): tf8's eager derivatives are a tape over op-by-op dispatch (DESIGN §3, §4), and "
        "such a function is traced again as a graph. Loops, branches, custom rules, `vmap`, "
        "`jit`, `checkpoint`, the jacobians and `linearize` run once, as in JAX.",
    ),
    api(
        "`jit` inside another transform inlines the function.",
        "tests/api/test_jit.py::"
        "test_python_control_flow_on_concrete_values_works_under_grad_of_jit",
        "So Python control flow on concrete values under `grad(jit(f))` works where JAX raises: "
        "the transform traces with concrete primals (DESIGN §3), and the inlined function sees "
        "them. `jit(inline=True)` is accepted and changes nothing.",
    ),
    api(
        "Named leaves and `tf8.recording()`.",
        "tests/compiler/test_compiler.py::"
        "test_inputs_carry_their_order_and_placeholders_are_the_unbound_ones",
        'JAX has neither; they exist for building programs by hand (`tf8.tensor(x, name="w")`, '
        "`GraphCompiler`; DESIGN §3, §5).",
    ),
    api(
        "`checkpoint` policies are called as `policy(op, *input_avals) -> bool`.",
        "tests/ad/test_checkpoint.py::test_a_policy_is_called_with_each_op_and_its_input_avals",
        "JAX passes the primitive and its parameters; a tf8 op is one hashable object that "
        "carries its parameters (DESIGN §1), and its input avals are recorded when it is made "
        "(DESIGN §4).",
    ),
    api(
        "`checkpoint(prevent_cse=...)` is accepted and has no effect.",
        "tests/ad/test_checkpoint.py::test_prevent_cse_is_accepted_and_changes_nothing",
        "The recompute lives in its own closed sub-program (DESIGN §4), which is never merged "
        "with the forward pass.",
    ),
    api(
        "`scan(unroll=...)` is accepted and ignored.",
        "tests/lax/test_control_programs.py::test_scan_unroll_is_accepted_and_ignored",
        "A loop is one control op over one closed sub-program, whose size in the program does "
        "not grow with the trip count (DESIGN §4).",
    ),
    api(
        "`check_grads` with both modes (the default) checks the VJP against the JVP.",
        "tests/ad/test_tape_fast_paths.py::test_with_both_modes_the_vjp_is_checked_against_the_jvp",
        "The forward check has just compared that JVP with central differences, so this is the "
        "exact adjoint identity, with no second truncation error (README's short tour: jvp vs "
        "finite differences, vjp vs jvp). JAX compares the VJP with central differences, as tf8 "
        'does with `modes=("rev",)`.',
    ),
    # --- random -------------------------------------------------------------------------------
    api(
        "`random.bits` defaults to uint32.",
        "tests/test_random.py::test_bits_match_jax",
        "JAX with x64 gives uint64; tf8's dtypes have no uint64 or uint16, and uint32 carries "
        "`tf8.random`'s keys and bits (DESIGN §2).",
    ),
    api(
        "Keys are raw `uint32[2]` arrays.",
        "tests/test_random.py::test_prng_key_holds_the_seed_bits",
        "JAX's `key` makes a typed key array; tf8's `key`, `wrap_key_data` and `key_data` are "
        "thin wrappers, since its dtypes are numpy's, with no key type, and uint32 carries the "
        "keys (DESIGN §2).",
    ),
    api(
        "`random.shuffle` is kept.",
        "tests/test_random_samplers.py::test_permutations_are_uniform_and_without_replacement",
        "JAX has removed it; tf8's is JAX's old `shuffle`, `permutation(key, x, axis, "
        "independent=True)`, so a ported program that calls it still runs (DESIGN §7: names "
        "and signatures are JAX's).",
    ),
    # --- numpy, linalg ------------------------------------------------------------------------
    api(
        "64-bit by default.",
        "tests/api/test_numpy_dtype_objects.py::test_the_default_precision_is_64_bit",
        "Python numbers, `tnp.int_`, `tnp.float_`, `arange`, `zeros`, `fft.fftfreq`, "
        "`nn.one_hot` and the `random` samplers give int64 and float64, as numpy does and as JAX "
        "does with `jax_enable_x64` (the setting the corpus is recorded with), unlike JAX's "
        'default, 32 bits (DESIGN §2). `tf8.config.update("jax_enable_x64", False)` (or '
        "`JAX_ENABLE_X64=0`) gives JAX's 32-bit dtypes, weak types and promotion.",
    ),
    api(
        "The x-derivative of `x ** y` at x = 0, y = 0 is 0.",
        "tests/api/test_numerics_edges.py::test_power_gradients_at_zero",
        "JAX gives NaN (its rule computes 0 · 0⁻¹ = 0 · inf); `x ** 0` is the constant 1, and "
        "tf8 takes the limit along y = 0, a kink convention (DESIGN §7). `power`'s other values "
        "and derivatives at 0 are JAX's.",
    ),
    api(
        "`partition`/`argpartition` return a full sort.",
        "tests/api/test_numpy_sorting.py::test_partition_and_argpartition_return_a_full_sort",
        "It meets numpy's contract (DESIGN §2: semantics follow numpy); JAX builds the two parts "
        "with `top_k`, so its part after the k-th element comes out in descending order.",
    ),
    api(
        "`cummax`, `cummin`, `cumlogsumexp` live in `tf8.numpy`.",
        "tests/api/test_numpy_nonzero_and_order.py::test_running_extremes",
        "JAX has them in `jax.lax`; tf8's take lax's signature `(a, axis=0, reverse=False)`. "
        "`tf8.lax` holds the builders of primitives, and these are compositions (doubling scans) "
        "written on them, so they live in the library layer above it (DESIGN, Layers).",
    ),
    api(
        "`convolve`/`correlate` accept and ignore `precision=` and `preferred_element_type=`.",
        "tests/api/test_numpy_long_tail.py::"
        "test_convolve_accepts_and_ignores_jax_precision_options",
        "tf8's kernels are numpy's, at the operands' promoted dtype (DESIGN §2, §6), so XLA's "
        "precision knobs have nothing to choose and the result keeps that dtype.",
    ),
    api(
        "`einsum_path` is numpy's path for the operands' shapes.",
        "tests/api/test_numpy_long_tail.py::test_index_helpers",
        "tf8's `einsum` chooses its own contraction order when the program is compiled "
        "(DESIGN §5); JAX's `einsum_path` is opt_einsum's.",
    ),
    api(
        "`tnp.ndarray` is `tf8.Array`, and the dtype helpers are numpy's own.",
        "tests/api/test_numpy_dtype_objects.py::test_type_queries_are_numpys",
        "`finfo`, `iinfo`, `issubdtype`, `dtype` and the abstract classes (`tnp.floating`, ...) "
        "are numpy's, where JAX has its own helpers: tf8's dtypes are numpy's dtypes (DESIGN "
        "§2). `tf8.Array` is the class `TracedTensor` (DESIGN §3).",
    ),
    # --- the jit API --------------------------------------------------------------------------
    api(
        "`make_jaxpr` prints tf8's program, not a jaxpr.",
        "tests/api/test_top_level_jax_names.py::test_make_jaxpr_prints_the_program_jit_runs",
        "It returns a `ClosedProgram` over the `CompiledGraph` that `jit` runs, after tf8's graph "
        "optimisations (DESIGN, the pipeline): `str()` is the program text, `.in_avals`, "
        "`.out_avals`, `.consts` and `.eqns` are there as JAX's names, as "
        "`ShapeDtypeStruct`s and ops.",
    ),
    api(
        "`closure_convert` hoists every array the function reads from outside.",
        "tests/api/test_top_level_jax_names.py::"
        "test_closure_convert_hoists_closed_over_values_and_differentiates_them",
        "JAX hoists only traced values and keeps concrete ones inside the function; tf8's traced "
        "sub-program takes every captured array as an input (DESIGN §4, closed sub-programs), so "
        "each is a const. The converted function computes the same values and derivatives.",
    ),
    api(
        "`jit`'s `donate_argnums`/`donate_argnames` are accepted and change nothing.",
        "tests/api/test_jit_api_details.py::test_jax_options_are_accepted_and_change_nothing",
        "tf8 never writes into its inputs (values are immutable, DESIGN §3), so a donated input "
        "stays valid where JAX invalidates it.",
    ),
    api(
        "`jit(keep_unused=True)` still prunes unused inputs from the program.",
        "tests/api/test_jit_api_details.py::"
        "test_keep_unused_is_accepted_and_unused_inputs_are_still_pruned",
        "The call still takes them: compile keeps what the outputs read (DESIGN, the pipeline), "
        "and nothing outside the program sees the inputs.",
    ),
    api(
        "`jit(f).lower(*args)` returns the `CompiledGraph`.",
        "tests/api/test_jit_api_details.py::test_lower_is_jax_lower",
        "JAX returns a `Lowered`; tf8's is what `tf8.make_program(f)(*args)` returns: "
        "`.pretty()` plays `as_text()`, and `tf8.Runtime().prepare(compiled)` plays "
        "`.compile()`. Every stage of the pipeline is a plain object you can print "
        "(DESIGN, the pipeline).",
    ),
]


def deliberate(m: object) -> Row | None:
    """The corpus row that keeps mismatch `m` on purpose, or None."""
    for row in DELIBERATE:
        if (
            row.name is not None
            and fnmatch.fnmatchcase(m.name, row.name)
            and fnmatch.fnmatchcase(m.signature, row.signature)
            and fnmatch.fnmatchcase(m.path, row.path)
            and fnmatch.fnmatchcase(m.what, row.differs)
        ):
            return row
    return None


README = Path(__file__).resolve().parents[2] / "README.md"
BEGIN = "<!-- deliberate differences: generated by tests/conformance/deliberate.py -->"
END = "<!-- end of the deliberate differences -->"
WIDTH = 100
LINE_MARKER = re.compile(r"[-+*]$|[#>|]|\d+[.)]$|=+$")  # what Markdown reads at a line's start


def _bullet(row: Row) -> str:
    """`- **what** reason`, wrapped to README's width; a continuation line never starts with
    a word Markdown would read as a list marker, heading or quote."""
    lines, line = [], ""
    for word in f"- **{row.what}** {row.reason}".split(" "):
        if line and len(line) + 1 + len(word) > WIDTH and not LINE_MARKER.match(word):
            lines.append(line)
            line = "  " + word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def section() -> str:
    """README's generated list of the deliberate differences: corpus rows, then API rows."""
    groups = [
        ("In the conformance corpus (the replay checks each):", True),
        ("In the API (each row names the test that checks it):", False),
    ]
    lines = [BEGIN]
    counts = []
    for title, is_corpus in groups:
        rows = [row for row in DELIBERATE if (row.name is not None) == is_corpus]
        counts.append(len(rows))
        if rows:
            lines += ["", title] + [_bullet(row) for row in rows]
    lines += [
        "",
        f"({len(DELIBERATE)} rows in `tests/conformance/deliberate.py`: {counts[0]} corpus, "
        f"{counts[1]} API.)",
        "",
        END,
    ]
    return "\n".join(lines)


def rewrite_readme() -> None:
    text = README.read_text()
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    README.write_text(text[:start] + section() + text[stop:])


if __name__ == "__main__":
    rewrite_readme()
    print(f"README: {len(DELIBERATE)} deliberate differences", file=sys.stderr)

"""The Dask engine (issue 18): placement by input type, lazy results, gradients over chunked
data, the error for ops Dask cannot run, pickled tasks on worker processes, and the shared
differential corpus against the numpy engine under Dask's synchronous scheduler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tf8
import tf8.numpy as tnp
from tf8.errors import ChunkingError

da = pytest.importorskip("dask.array", reason="the Dask engine needs its extra: pip install dask")
import dask  # noqa: E402

from tf8.ops.primitives import PRIMITIVES  # noqa: E402
from tf8.runtime.engines.dask.kernels import by_category  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RTOL = 1e-12


def loss(w, X, y):
    return tnp.mean((X @ w - y) ** 2)


def _data(n=120, d=5, chunk=25, seed=0):
    rng = np.random.default_rng(seed)
    X, y, w = rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal(d)
    return w, X, y, da.from_array(X, chunks=(chunk, d)), da.from_array(y, chunks=chunk)


def test_dask_inputs_run_on_the_dask_engine_and_stay_lazy():
    calls = []

    def counted(block):
        calls.append(block.shape)
        return block

    w, X, y, dX, dy = _data()
    lazy_X = dX.map_blocks(counted, dtype=dX.dtype, meta=np.empty((0, 0)))
    f = tf8.jit(lambda w, X, y: (X @ w - y, tnp.sum(tnp.exp(X) * 2.0, axis=0)))
    r, s = f(w, lazy_X, dy)
    assert isinstance(r, da.Array) and isinstance(s, da.Array)
    assert calls == [], "building the program computed nothing"
    assert r.chunks == ((25, 25, 25, 25, 20),), r.chunks  # the rows stay chunked
    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_allclose(np.asarray(r), X @ w - y, rtol=RTOL)
        np.testing.assert_allclose(s.compute(), np.sum(np.exp(X) * 2.0, axis=0), rtol=RTOL)
    assert calls, "computing ran the graph"
    # the same function on numpy arrays runs on the numpy engine (a separate trace)
    assert isinstance(f(w, X, y)[0], tf8.Array)


def test_engine_dask_turns_numpy_inputs_into_one_chunk_arrays():
    w, X, y, *_ = _data()
    f = tf8.jit(loss, engine="dask")
    for _ in range(2):  # the lean tier, then the optimised one
        value = f(w, X, y)
        assert isinstance(value, da.Array) and value.shape == ()
        assert float(value) == pytest.approx(np.mean((X @ w - y) ** 2), rel=RTOL)


def test_value_and_grad_over_chunked_data_matches_the_numpy_engine():
    w, X, y, dX, dy = _data()
    expected = tf8.jit(tf8.value_and_grad(loss), engine="numpy")(w, X, y)
    f = tf8.jit(tf8.value_and_grad(loss))
    for _ in range(2):  # the lean tier, then the optimised one
        value, grad = f(w, dX, dy)
        assert isinstance(value, da.Array) and isinstance(grad, da.Array)
        value, grad = dask.compute(value, grad, scheduler="synchronous")
        assert value == pytest.approx(expected[0], rel=RTOL)
        np.testing.assert_allclose(grad, expected[1], rtol=RTOL)
    np.testing.assert_allclose(grad, 2 * X.T @ (X @ w - y) / len(y), rtol=1e-10)  # closed form


def test_ops_dask_cannot_run_raise_naming_the_op_and_the_remedy():
    x = np.random.default_rng(1).standard_normal((6, 4))
    by_rows = da.from_array(x, chunks=(3, 4))
    # sort is batched along unchunked axes: along the rows' chunked axis it refuses
    with pytest.raises(ChunkingError, match=r"sort: .*axis 0 .*chunks \(3, 3\).*rechunk"):
        tf8.jit(lambda a: tnp.sort(a, axis=0))(by_rows)
    np.testing.assert_array_equal(tf8.jit(lambda a: tnp.sort(a, axis=1))(by_rows), np.sort(x))
    # an op with several results runs as one task, only on one-chunk operands
    square = da.from_array(x @ x.T, chunks=(3, 6))
    with pytest.raises(ChunkingError, match=r"eigh: .*one chunk.*rechunk.*or compute it first"):
        tf8.jit(lambda a: tf8.linalg.eigh(a)[1])(square)
    vectors = tf8.jit(lambda a: tf8.linalg.eigh(a)[1])(square.rechunk(-1))
    np.testing.assert_allclose(np.abs(vectors), np.abs(np.linalg.eigh(x @ x.T)[1]), atol=1e-8)
    # a batched matrix op needs its matrix axes whole; the batch axis may be chunked
    stack = np.random.default_rng(2).standard_normal((4, 3, 3)) + 3 * np.eye(3)
    got = tf8.jit(tf8.linalg.inv)(da.from_array(stack, chunks=(2, 3, 3)))
    assert got.chunks[0] == (2, 2)
    np.testing.assert_allclose(got, np.linalg.inv(stack), rtol=1e-10)
    with pytest.raises(ChunkingError, match=r"inv: core axis 1 .*rechunk"):
        tf8.jit(tf8.linalg.inv)(da.from_array(stack, chunks=(2, 2, 3)))
    # control flow has no Dask kernel
    with pytest.raises(ChunkingError, match=r"scan: the Dask engine has no kernel.*compute"):
        tf8.jit(lambda a: tf8.lax.fori_loop(0, 3, lambda i, c: c * 2.0, a))(by_rows)


@pytest.mark.parametrize(
    "config", [((1, 2, 1), (0, -1, 2)), ((-1, 0, 3), (2, 1, 0)), ((0, 0, 0), (-2, 3, 1))]
)
def test_pad_interior_and_negative_edges_on_chunked_data(config):
    x = np.arange(24.0).reshape(4, 6)
    expected = tf8.jit(lambda a: tf8.lax.pad(a, -7.0, config), engine="numpy")(x)
    got = tf8.jit(lambda a: tf8.lax.pad(a, -7.0, config))(da.from_array(x, chunks=(3, 4)))
    assert isinstance(got, da.Array) and got.npartitions > 1
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("reduce", [tnp.max, tnp.min, tnp.sum, tnp.prod, tnp.argmax])
@pytest.mark.parametrize("chunks", [(1, 1, 1), -1])
def test_reductions_of_empty_arrays_keep_their_shape(reduce, chunks):
    # dask's max of a (0, 2, 1) array over axis 1 had shape (1, 0) (found by the fuzz); an
    # instruction whose results are empty now makes them from their avals
    x = np.zeros((0, 2, 1))
    got = tf8.jit(lambda a: reduce(a, axis=1))(da.from_array(x, chunks=chunks))
    expected = reduce(x, axis=1)
    assert got.shape == expected.shape == (0, 1)
    computed = got.compute(scheduler="synchronous")
    assert computed.shape == expected.shape and computed.dtype == expected.dtype


def test_refusals_name_an_extension_op_by_its_name():
    # an FFT's name is per op (fft, ifft, ...): the message said "<property object at ...>"
    x = da.from_array(np.ones((2, 4), np.complex128), chunks=(2, 2))
    with pytest.raises(ChunkingError, match=r"^ifft: the transformed axis 1 "):
        tf8.jit(lambda a: tnp.fft.ifft(a))(x)


def test_tasks_are_tokenized_by_their_op():
    from dask.base import tokenize

    from tf8.ops.primitive import make_primitive
    from tf8.runtime.engines.dask.kernels import Block, Stacked

    def op(**params):
        return make_primitive("reduce_sum", 1, params)

    assert tokenize(Block(op(axes=(0,)))) == tokenize(Block(op(axes=(0,))))
    distinct = [Block(op(axes=(0,))), Block(op(axes=(1,))), Stacked(op(axes=(0,)))]
    assert len({tokenize(b) for b in distinct}) == 3


def test_import_tf8_does_not_import_dask():
    code = "import sys, tf8; print('dask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


# --- worker processes ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed", reason="needs dask.distributed")
    try:
        cluster = distributed.LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            memory_limit="1GiB",
        )
    except Exception as exc:  # noqa: BLE001 - any failure to start: say why and skip
        print(f"LocalCluster could not start here: {exc!r}")
        pytest.skip(f"dask.distributed LocalCluster could not start: {exc!r}")
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_gradient_over_chunked_data_on_two_worker_processes(cluster_client):
    w, X, y, dX, dy = _data(n=400, chunk=50, seed=3)
    value, grad = tf8.jit(tf8.value_and_grad(loss))(w, dX, dy)
    from distributed import get_task_stream

    with get_task_stream(cluster_client) as stream:  # tf8's tasks, pickled to both workers
        value, grad = cluster_client.compute([value, grad], sync=True)
    expected = tf8.jit(tf8.value_and_grad(loss), engine="numpy")(w, X, y)
    assert value == pytest.approx(expected[0], rel=RTOL)
    np.testing.assert_allclose(grad, expected[1], rtol=RTOL)
    assert len({task["worker"] for task in stream.data}) == 2, stream.data


# --- the shared differential corpus --------------------------------------------------------


def _rows():
    sys.path.insert(0, str(ROOT / "tests" / "ad"))
    from ad_cases import DIFFERENTIABLE, F64, dtypes_of

    return [name for name in DIFFERENTIABLE if F64 in dtypes_of(name)]


def _chunked(x):
    return da.from_array(x, chunks=tuple(max(1, (d + 1) // 2) for d in x.shape))


@pytest.mark.parametrize("name", _rows())
def test_differential_corpus_agrees_with_the_numpy_engine(name):
    """Each AD-test row's value and gradient, on operands cut in two chunks per axis."""
    from ad_cases import F64, draw_call

    if by_category(PRIMITIVES[name]) is None:  # host rows, whose sizes are known only while running
        reason = f"{name}: the Dask engine has no kernel for it (sizes known only while running)"
        print(f"skipped: {reason}")
        pytest.skip(reason)
    call = draw_call((2, 3), 17, name, F64)
    weights = np.random.default_rng(17).standard_normal(call(*call.args).shape)

    def total(*xs):
        return tnp.sum(tnp.real(call(*xs)) * weights)

    argnums = tuple(range(len(call.args)))
    program = tf8.value_and_grad(total, argnums=argnums)
    expected = tf8.jit(program, engine="numpy")(*call.args)
    jitted = tf8.jit(program)
    with dask.config.set(scheduler="synchronous"):
        try:
            _agree(jitted, [_chunked(x) for x in call.args], expected)
        except ChunkingError as exc:
            # what the engine cannot run on chunks it runs as one task on one-chunk operands
            _agree(jitted, [da.from_array(x, chunks=-1) for x in call.args], expected)
            print(f"{name}: skipped on chunked operands: {exc}")
            pytest.skip(f"{name}: the Dask engine cannot run it on chunked operands: {exc}")


def _agree(jitted, args, expected):
    for _ in range(2):  # the lean tier, then the optimised one
        value, grads = dask.compute(*jitted(*args))
        assert value == pytest.approx(expected[0], rel=RTOL, abs=1e-14)
        for got, reference in zip(grads, expected[1]):
            assert got.shape == reference.shape and got.dtype == reference.dtype
            np.testing.assert_allclose(got, reference, rtol=RTOL, atol=1e-14)

"""Transform state is per thread (one stack of frames in a context variable): concurrent
transforms never mix.

One thread differentiates (its ops are tagged Linearized while it works) while another builds
plain programs; forced into fine-grained interleaving, each gets exactly its serial results.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

import tf8
import tf8.numpy as tnp
from tf8.graph import PRIMARY, materialize_merge

ROUNDS = 25


def _loss(x):
    y = x
    for _ in range(6):
        y = tnp.tanh(y) * x + tnp.sin(y)
    return tnp.sum(y * y)


def _plain(x):
    y = x
    for _ in range(6):
        y = tnp.cos(y) * 1.5 - y
    return y


def test_a_thread_inside_grad_and_one_building_plain_programs_never_mix():
    x = np.linspace(-1.0, 1.0, 5)
    serial_grad = tf8.grad(_loss)(x)
    serial_plain = np.asarray(_plain(tf8.tensor(x)))
    barrier = threading.Barrier(2)
    failures: list[str] = []

    def guarded(body):
        def run():
            try:
                body()
            except Exception as exc:  # noqa: BLE001 - reported below
                failures.append(f"{type(exc).__name__}: {exc}")

        return run

    @guarded
    def differentiate():
        barrier.wait()
        for _ in range(ROUNDS):
            got = tf8.grad(_loss)(x)
            if not np.array_equal(got, serial_grad):
                failures.append(f"grad differs: {got} != {serial_grad}")

    @guarded
    def build_plain():
        barrier.wait()
        for _ in range(ROUNDS):
            out = _plain(tf8.placeholder(x.shape, x.dtype))
            roles = {op.role for op in materialize_merge(None, [out.key]).operations}
            if roles != {PRIMARY}:
                failures.append(f"a plain program holds ops of roles {roles}")
            eager = _plain(tf8.tensor(x))
            if not np.array_equal(np.asarray(eager), serial_plain):
                failures.append("plain result differs")
            if not eager.key.is_input:  # as serially: an evaluated eager value becomes a leaf
                failures.append("an eager value was not cut: this thread saw another's transform")

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows
    try:
        threads = [threading.Thread(target=differentiate), threading.Thread(target=build_plain)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not failures, failures[:3]


def test_transform_state_is_scoped_to_the_thread():
    from tf8.lax.scopes import transform_scope
    from tf8.traced import in_transform

    seen = []
    inside = threading.Event()
    release = threading.Event()

    def hold_a_transform():
        with transform_scope():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=hold_a_transform)
    t.start()
    inside.wait(5)
    seen.append(in_transform())  # this thread is in no transform
    release.set()
    t.join()
    assert seen == [False]


def test_eager_and_taped_work_in_threads_see_only_their_own_frames():
    # while one thread holds jit's recording frame, another's eager ops and tapes still run
    # op by op, and the recording thread still records
    from tf8.lax.scopes import recording
    from tf8.ops.frames import frame_var

    x = np.linspace(-1.0, 1.0, 5)
    serial = tf8.grad(_loss)(x)
    inside, release = threading.Event(), threading.Event()
    recorded = []

    def record():
        with recording():
            inside.set()
            release.wait(5)
            recorded.append(tnp.sin(tf8.tensor(x))._value is None)  # recorded, not computed

    t = threading.Thread(target=record)
    t.start()
    inside.wait(5)
    try:
        assert frame_var.get() is None  # this thread is outside every transform
        np.testing.assert_array_equal(tf8.grad(_loss)(x), serial)
        assert tnp.sin(tf8.tensor(x))._value is not None  # computed at once
    finally:
        release.set()
        t.join()
    assert recorded == [True]

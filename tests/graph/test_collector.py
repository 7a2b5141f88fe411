"""tf8.graph.collector.paused: automatic garbage collection off inside, restored after."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import tf8
from tf8.graph import collector


@pytest.fixture
def collecting():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_turns_collection_off_and_back_on(collecting):
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():  # nested: still off, and the inner exit does not resume
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_paused_leaves_collection_off_when_it_was_off(collecting):
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()
    gc.enable()


def test_paused_resumes_after_an_exception(collecting):
    with pytest.raises(ValueError), collector.paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_concurrent_pauses_resume_when_the_last_ends(collecting):
    inside, release = threading.Event(), threading.Event()

    def hold():
        with collector.paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(10)
    with collector.paused():
        pass
    assert not gc.isenabled()  # the other thread's pause still runs
    release.set()
    thread.join()
    assert gc.isenabled()


def test_jit_traces_with_collection_paused_and_resumes_it(collecting):
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x * 2.0

    np.testing.assert_array_equal(tf8.jit(f)(np.ones(3)), np.full(3, 2.0))
    assert seen == [False] and gc.isenabled()

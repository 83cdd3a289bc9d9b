"""``collector_paused``: the one pause of the cyclic collector (index, mining and TREC reading share it)."""

from __future__ import annotations

import gc

import pytest

from workbench.code import collector_paused


def test_the_collector_is_off_inside_and_restored_after_even_on_error() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


class _Node:
    """A referent a weak reference can watch (a bare list cannot be weakly referenced)."""

    def __init__(self) -> None:
        self.other: _Node | None = None


def _frozen(obj: object) -> bool:
    """Whether ``obj`` is out of every generation a collection walks (``gc.freeze``)."""
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_what_a_pause_built_is_frozen_after_it() -> None:
    with collector_paused():
        built = [_Node() for _ in range(1000)]
    assert _frozen(built) and _frozen(built[0])  # conftest hands frozen objects back after each test


def test_frozen_cyclic_garbage_goes_at_the_next_full_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    import weakref

    from workbench.code import collector

    monkeypatch.setattr(collector, "FULL_PASS_FLOOR", 10_000)
    monkeypatch.setattr(collector, "_alive_after_full", 0)
    monkeypatch.setattr(collector, "_frozen_since_full", 0)
    a, b = _Node(), _Node()
    a.other, b.other = b, a  # a cycle only the collector can free
    watched = weakref.ref(a)
    with collector_paused():
        pass
    assert _frozen(a)
    del a, b
    gc.collect()
    assert watched() is not None  # frozen: no collection sees it
    with collector_paused():
        more = [[n] for n in range(20_000)]  # more than the floor: the next settle runs a full pass
    assert watched() is None
    assert _frozen(more) and collector._frozen_since_full == 0

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

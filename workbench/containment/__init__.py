"""Containment of fixture commands: bubblewrap when this machine has it.

Under bubblewrap (``bwrap``, found on PATH and checked once) a harness or validation
command sees the whole file system read-only, its temporary copy as the only writable directory
besides a private ``/tmp`` (also its ``HOME``), no network, its own PID, IPC and UTS namespaces and a
new session, and it dies with workbench. Without it, ``sandbox_kind()`` is ``"none"`` (the run's
summary and report say so) and commands run as the user, confined only by the allowlist, the
minimal environment and the timeout.

Either way ``sandbox.drop_escaping_links`` leaves no symlink in a copy that resolves outside the copy,
dangles or loops: a fixture cannot be modified through a link, whatever its scripts write.
"""

from __future__ import annotations

from .bwrap import BWRAP, ENV_DISABLE, contain, sandbox_kind
from .reap import REAP_ENV, become_subreaper, reap, reap_all, reaped_argv, reaped_env, started
from .run import OUTPUT_KEEP, Finished, run_contained

__all__ = [
    "BWRAP",
    "ENV_DISABLE",
    "OUTPUT_KEEP",
    "REAP_ENV",
    "Finished",
    "become_subreaper",
    "contain",
    "reap",
    "reap_all",
    "reaped_argv",
    "reaped_env",
    "run_contained",
    "sandbox_kind",
    "started",
]

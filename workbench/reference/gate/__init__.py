"""The reference engine's local merge gate: the change, its path checks, secrets, policy, release and validation."""

from .judge import GateOptions, parse_options, run_gate

__all__ = ["GateOptions", "parse_options", "run_gate"]

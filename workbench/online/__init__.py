"""Online evidence: team-draft interleaving of two engines, simulated clicks, paired preference.

``simulate_interleaving`` runs two targets' ``context_pack`` over a corpus (through the run
machinery), interleaves each case's packs (``interleave``), simulates the agent's clicks with a
cascade click model (``clicks``), credits them (``credit``), tests the preference (``preference``)
and measures how many tasks interleaving and the offline paired test need (``sensitivity``).
``InterleavingDispatcher`` serves the same interleaving online (``serve --interleave``) into an
impression log that ``analyze_log`` reads back into the same preference.
numpy, pandas and scipy are imported inside the functions that use them.
"""

from __future__ import annotations

from .analyze import LogAnalysis, analyze_log
from .clicks import CLICK_MODELS, DEFAULT_CLICK_MODEL, ClickModel, click_model
from .credit import Credit, credit, credit_rows, outcome
from .interleave import TEAM_A, TEAM_B, case_rng, interleave_case, stable_hash, team_draft
from .packs import CasePacks, Packs, packs_from_frames, run_packs
from .preference import Preference, preference, sign_test_p
from .sensitivity import Sensitivity, measure
from .serve import InterleavingDispatcher
from .simulate import InterleaveResult, interleave_packs, simulate_interleaving
from .text import render_log_text, render_text

__all__ = [
    "CLICK_MODELS",
    "DEFAULT_CLICK_MODEL",
    "TEAM_A",
    "TEAM_B",
    "CasePacks",
    "ClickModel",
    "Credit",
    "InterleaveResult",
    "InterleavingDispatcher",
    "LogAnalysis",
    "Packs",
    "Preference",
    "Sensitivity",
    "analyze_log",
    "case_rng",
    "click_model",
    "credit",
    "credit_rows",
    "interleave_case",
    "interleave_packs",
    "measure",
    "outcome",
    "packs_from_frames",
    "preference",
    "render_log_text",
    "render_text",
    "run_packs",
    "sign_test_p",
    "simulate_interleaving",
    "stable_hash",
    "team_draft",
]

"""Terminal renderings: an interleaving experiment (counts, test, interval, power table) and an
analysed impression log (its counts and problems, then the same preference lines)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..columns import METHOD, POWER, TASKS
from .sensitivity import INTERLEAVING, OFFLINE

if TYPE_CHECKING:
    from .analyze import LogAnalysis
    from .preference import Preference
    from .simulate import InterleaveResult


def preference_lines(pref: Preference, a: str, b: str) -> list[str]:
    """Wins/ties/wins, the sign test and the preference with its interval."""
    favoured = b if pref.preference > 0 else a if pref.preference < 0 else "neither"
    interval = (
        f"[{pref.ci_low:+.3f}, {pref.ci_high:+.3f}]" if pref.ci_low == pref.ci_low else "none (fewer than 2 tasks)"
    )
    return [
        f"wins A ({a}) {pref.wins_a}, ties {pref.ties}, wins B ({b}) {pref.wins_b}; "
        f"sign test p = {pref.p:.3g} ({'significant' if pref.p < 0.05 else 'not significant'} at 0.05)",
        f"preference (wins B - wins A) / n = {pref.preference:+.3f}, 95% bootstrap interval {interval} "
        f"(favours {favoured})",
    ]


def render_text(result: InterleaveResult) -> str:
    """A few lines: who was compared how, wins/ties/losses, p, the preference interval, the power
    table and the measured sensitivity ratio."""
    pref, sens, model = result.preference, result.sensitivity, result.click_model
    a, b = result.target_a, result.target_b
    offline = f"{OFFLINE} ({result.offline.get('metric')}, {result.offline.get('test')})"
    lines = [
        f"interleave {a} (A) vs {b} (B): {pref.n} cases of {result.corpus}, team-draft, "
        f"{result.length} shown, click model {model.name}, seed {result.seed}",
        *preference_lines(pref, a, b),
        "",
        f"sensitivity: power at p < {sens.alpha:g} over {sens.resamples} seeded resamples of n cases",
        f"{'n':>5}  {INTERLEAVING:>12}  {offline:>18}",
    ]
    table = sens.table.pivot(index=TASKS, columns=METHOD, values=POWER)
    for n, row in table.iterrows():
        lines.append(f"{n:>5}  {row[INTERLEAVING]:>12.2f}  {row[OFFLINE]:>18.2f}")
    ratio = "none" if sens.ratio is None else f"{sens.ratio:.2f}"
    lines += [
        "",
        f"smallest n at {sens.target_power:.0%} power: interleaving {sens.n_interleaving or 'not reached'}, "
        f"offline {sens.n_offline or 'not reached'}; sensitivity ratio (offline n / interleaving n) = {ratio}",
        sens.verdict(),
    ]
    return "\n".join(lines)


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on (escape sequences, other controls,
    bidirectional overrides: whatever is not printable) written as its Python escape, ``\\x1b``."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def render_log_text(found: LogAnalysis) -> str:
    """The log's counts (every problem kind, zero or not), its first problems, then the preference;
    every text that came from the log made ``printable``."""
    counts = ", ".join(f"{key} {value}" for key, value in found.counts.items())
    lines = [f"impression log {found.log}: {found.target_a} (A) vs {found.target_b} (B)", counts]
    lines += [f"  {problem}" for problem in found.problems]
    if found.preference is None:
        lines.append("no task with feedback: no preference")
    else:
        lines += preference_lines(found.preference, found.target_a, found.target_b)
    return "\n".join(map(printable, lines))

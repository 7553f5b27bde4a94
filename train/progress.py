"""What a training run prints as it goes: one progress line, the same for both backends."""

from __future__ import annotations

from typing import Any


def progress_line(steps: int, total: int, rate: float, stats: dict[str, float], evals: list[dict[str, Any]]) -> str:
    """``steps/total decisions | rate/s | reward | wins by opponent | the last evaluation``.

    Args:
        steps, total: learner decisions so far and in all (``ppo.total_steps``).
        rate: learner decisions per second since the run (or its resumption) began.
        stats: the self-play figures of the last rollouts (``episode_reward``, ``win_rate_vs_*``).
        evals: the run's evaluation results so far (the last is shown).
    """
    last = evals[-1] if evals else None
    ev = (
        f" | eval vs {last['opponent']} {last['mean']:+.2f} [{last['ci95'][0]:+.2f}, {last['ci95'][1]:+.2f}]"
        if last
        else ""
    )
    wins = " ".join(f"{k[12:]} {v:.0%}" for k, v in stats.items() if k.startswith("win_rate_vs_"))
    return f"{steps:,}/{total:,} decisions | {rate:,.0f}/s | reward {stats.get('episode_reward', 0):+.3f} | wins {wins}{ev}"

"""The result of one hand, in the form R11.4 puts into every agent's info."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from baloot_env.hand import HandState
    from baloot_env.scoring import HandScore


@dataclass(frozen=True)
class HandResult:
    """R11.4 ``hand_result``. Lists are [team 0, team 1]."""

    contract: str | None
    trump: int | None
    caller: int | None
    level: int
    raw: tuple[int, int]
    tricks: tuple[int, int]
    projects: tuple[tuple[int, ...], tuple[int, ...]]
    baloot: tuple[int, int]
    kaboot: bool
    callers_won: bool | None
    score: tuple[int, int]
    gahwa_winner: int | None
    dealer: int

    @classmethod
    def thrown_in(cls, dealer: int) -> HandResult:
        """R3.5: a deal thrown in scores nothing."""
        return cls(None, None, None, 1, (0, 0), (0, 0), ((), ()), (0, 0), False, None, (0, 0), None, dealer)

    @classmethod
    def played(cls, state: HandState, projects: list[list[int]], baloot: list[int], hs: HandScore) -> HandResult:
        return cls(
            contract=state.contract,
            trump=state.trump if state.trump >= 0 else None,
            caller=state.caller,
            level=state.level,
            raw=(state.raw[0], state.raw[1]),
            tricks=(state.tricks_won[0], state.tricks_won[1]),
            projects=(tuple(projects[0]), tuple(projects[1])),
            baloot=(baloot[0], baloot[1]),
            kaboot=hs.kaboot,
            callers_won=hs.callers_won,
            score=hs.score,
            gahwa_winner=hs.gahwa_winner,
            dealer=state.dealer,
        )

    @property
    def thrown(self) -> bool:
        return self.contract is None

    def to_info(self) -> dict[str, Any]:
        """The R11.4 dict (plus the dealer), JSON-ready."""
        return {
            "contract": self.contract,
            "trump": self.trump,
            "caller": self.caller,
            "level": self.level,
            "raw": list(self.raw),
            "tricks": list(self.tricks),
            "projects": [list(self.projects[0]), list(self.projects[1])],
            "baloot": list(self.baloot),
            "kaboot": self.kaboot,
            "callers_won": self.callers_won,
            "score": list(self.score),
            "gahwa_winner": self.gahwa_winner,
            "dealer": self.dealer,
        }

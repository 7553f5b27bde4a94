"""``netsearch``: the sampled-worlds search guided by a trained network.

The search player (``agents.search_player.player``) values every legal card by playing it out
in sampled worlds; by default its bidding and doubling are the ``heuristic`` agent's bars.
``netsearch`` runs that search with its calls searched too (``SEARCH_DEFAULTS``) and puts a
policy bundle inside the loop, each use a switch:

* **prior over cards** (``prior``): the card played maximises

      search value (game points of the hand, R7)  +  prior * log pi(card | view)

  where pi is the network's masked softmax for the seat's own view. With ``prior`` 0 the
  network only breaks the search's exact ties (a quarter of its choices: equivalent cards, or
  every card losing the same in every world), which the plain search breaks by the heuristic.
  A positive ``prior`` also lets the network overrule a small search margin, the noise of a
  finite number of worlds, in favour of the move it learned to prefer.
* **calls** (``bidding``): ``"network"`` makes the bidding (R3) and doubling (R4) decisions with
  the network's greedy policy; ``"search"`` leaves them to the search underneath (the
  heuristic's bars, or with ``calls: "searched"`` in its params every bid valued by sampled
  deals, ``agents.search_player.calls``). With searched bids, ``bid_prior`` weighs the
  network's log-probability of each bid beside its searched value, as ``prior`` does for cards.

* **playouts** (``leaves``): ``"playout"`` values a card in a world by the heuristic's playout;
  ``"policy"`` by a playout in which every seat plays a network's greedy card from its own view
  in that world (``policy_leaves``; the network of ``rollout``, by default ``policy``), so that a
  card is judged by how it fares when the hand goes on as the network plays it; ``"critic"`` by
  the network's privileged critic right after the card (``critic_leaves``). ``precision`` is the
  number format of the playouts' forward passes: ``bf16`` (or ``auto`` where the processor does
  bf16 in hardware, ``agents.neural.precision``) plays them about 6x faster than fp32 and picks
  the same greedy card in 99.8% of the network's decisions (docs/BENCHMARKS.md).
* **beliefs** (``belief``): each sampled world of a card decision weighted by how likely the
  network (the playouts' one) makes the cards the other seats chose in it, to the power
  ``belief``, its probabilities mixed with ``belief_mix`` of the uniform choice
  (``beliefs``); 0, the default, weighs every world alike.

The network sees only the seat's ``PlayerView`` (its observation), like every agent; the search
sees only what the view shows (its sampler). One forward pass per decision costs about 0.2 ms
beside the playouts (``benchmarks/decision_time.py``). Measured on development deals
(docs/RESULTS.md): the tie-breaks help a little, a card prior and the network's own calls do
not; the searched calls carry most of ``netsearch``'s margin over ``search``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any

import numpy as np

from agents.base import Agent
from agents.judgement import Judgement
from agents.neural.precision import PRECISIONS
from agents.search_player.player import SearchAgent, SearchConfig
from baloot_env.cards import cards_of
from baloot_env.config import from_mapping
from baloot_env.errors import ConfigError
from baloot_env.hand import PLAY
from baloot_env.view import PlayerView

BIDDING_BY = ("network", "search")  # who makes the bidding and doubling decisions
# what values a card in a world: heuristic playouts, the network's critic, or playouts of the network's policy
LEAVES = ("playout", "critic", "policy")
DEFAULT_POLICY = "policies/champion"
# The search underneath searches its calls unless the params say otherwise: measured the
# strongest setting on development deals (docs/RESULTS.md, "Searched calls").
SEARCH_DEFAULTS: dict[str, Any] = {"calls": "searched", "condition": True}


@dataclass(frozen=True)
class NetSearchConfig:
    """Parameters of ``netsearch``.

    Attributes:
        policy: the policy bundle that guides the search (a folder, or ``policies/NAME``).
        prior: weight of the network's log-probability beside the search value, in game points
            per nat; 0 uses the network only to break exact ties.
        bidding: ``"network"`` or ``"search"`` (the search player's) bidding and doubling.
        bid_prior: with searched bids, the weight of the network's log-probability of a bid.
        leaves: ``"playout"`` (the search's heuristic playouts), ``"critic"`` (the network's
            privileged critic values the position after the card, ``critic_leaves``) or
            ``"policy"`` (playouts in which every seat plays a network's greedy card,
            ``policy_leaves``).
        rollout: with ``leaves: "policy"``, the policy bundle that plays the playouts (a small,
            fast one, say a distilled student); empty: ``policy`` itself.
        precision: with ``leaves: "policy"``, the number format of the playouts' forward passes
            (``fp32``, ``bf16``, or ``auto``: bf16 where the processor does it in hardware).
        belief: the power of the worlds' likelihoods in their weights (``beliefs``); 0: off.
        belief_mix: the share of the uniform choice among the legal cards mixed into the
            network's probability of a card, in [0, 1).
        prune: search only the cards to which the network gives at least this probability, and
            always its favourite; a card alone above it is played unsearched. 0: every legal
            card is searched. The worlds a card decision plays cost a row per card, so the
            search spends them on the cards a player would consider (as AlphaZero's prior
            narrows its tree), and a card the worlds' noise favours by chance is not among them.
        search: the search underneath (``SEARCH_DEFAULTS``: searched, conditioned calls); in a
            params mapping its fields (``worlds``, ``calls``, ...) sit beside the ones above.
    """

    policy: str = DEFAULT_POLICY
    prior: float = 0.0
    bidding: str = "search"
    bid_prior: float = 0.0
    leaves: str = "playout"
    rollout: str = ""
    precision: str = "fp32"
    belief: float = 0.0
    belief_mix: float = 0.1
    prune: float = 0.0
    search: SearchConfig = field(default_factory=lambda: SearchConfig(**SEARCH_DEFAULTS))

    def __post_init__(self) -> None:
        if not isinstance(self.policy, str) or not self.policy:
            raise ConfigError(f"netsearch param policy must be a bundle path, got {self.policy!r}")
        for name in ("prior", "bid_prior", "belief"):
            if not 0 <= getattr(self, name) < math.inf:  # NaN fails both
                raise ConfigError(f"netsearch param {name} must be a finite number >= 0, got {getattr(self, name)!r}")
        if not 0 <= self.belief_mix < 1:  # NaN fails
            raise ConfigError(f"netsearch param belief_mix must be in [0, 1), got {self.belief_mix!r}")
        if not 0 <= self.prune < 1:  # NaN fails
            raise ConfigError(f"netsearch param prune must be in [0, 1), got {self.prune!r}")
        if self.prune and self.search.backend != "core":
            raise ConfigError("netsearch param prune needs the search's backend 'core'")
        if self.belief and self.search.backend != "core":
            raise ConfigError("netsearch param belief needs the search's backend 'core'")
        if self.bidding not in BIDDING_BY:
            raise ConfigError(f"netsearch param bidding must be one of {BIDDING_BY}, got {self.bidding!r}")
        if self.leaves not in LEAVES:
            raise ConfigError(f"netsearch param leaves must be one of {LEAVES}, got {self.leaves!r}")
        if self.leaves != "playout" and self.search.backend != "core":
            raise ConfigError(f"netsearch param leaves {self.leaves!r} needs the search's backend 'core'")
        if not isinstance(self.rollout, str) or (self.rollout and self.leaves != "policy"):
            raise ConfigError(
                f"netsearch param rollout names the playouts' bundle of leaves 'policy', got {self.rollout!r}"
            )
        if self.precision not in PRECISIONS or (self.precision != "fp32" and self.leaves != "policy"):
            raise ConfigError(
                f"netsearch param precision is the number format of leaves 'policy', one of {PRECISIONS}, "
                f"got {self.precision!r} with leaves {self.leaves!r}"
            )

    @classmethod
    def from_dict(cls, data: object) -> NetSearchConfig:
        """Build from a flat mapping: ``policy``, ``prior``, ``bidding``, ``bid_prior`` and any ``SearchConfig``
        field; unknown keys or wrong types raise ``ConfigError``."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"netsearch params must be a mapping, got {type(data).__name__}")
        own = {k: v for k, v in data.items() if k in _OWN}
        base = from_mapping(_Own, own, "netsearch param")
        search = SearchConfig.from_dict(SEARCH_DEFAULTS | {k: v for k, v in data.items() if k not in _OWN})
        return cls(**{f.name: getattr(base, f.name) for f in fields(_Own)}, search=search)

    def to_dict(self) -> dict[str, Any]:
        """The flat params mapping that ``from_dict`` reads back."""
        own = {
            "policy": self.policy,
            "prior": self.prior,
            "bidding": self.bidding,
            "bid_prior": self.bid_prior,
            "leaves": self.leaves,
            **({"rollout": self.rollout} if self.rollout else {}),
            **({"precision": self.precision} if self.precision != "fp32" else {}),
            **({"belief": self.belief, "belief_mix": self.belief_mix} if self.belief else {}),
            **({"prune": self.prune} if self.prune else {}),
        }
        return {**own, **self.search.to_dict()}


@dataclass(frozen=True)
class _Own:
    """The scalar fields of ``NetSearchConfig``, typed for ``from_mapping``."""

    policy: str = DEFAULT_POLICY
    prior: float = 0.0
    bidding: str = "search"
    bid_prior: float = 0.0
    leaves: str = "playout"
    rollout: str = ""
    precision: str = "fp32"
    belief: float = 0.0
    belief_mix: float = 0.1
    prune: float = 0.0


_OWN = frozenset(f.name for f in fields(_Own))


class NetSearchAgent(Agent):
    """Search whose card choice is guided by a policy network (module docstring)."""

    name = "netsearch"
    deterministic = False

    def __init__(self, seed: int, config: NetSearchConfig, policy: Agent, rollout: Agent | None = None):
        """``rollout``: the policy agent that plays the playouts of ``leaves: "policy"``: the
        bundle of ``config.rollout``, or expert iteration's learner guiding the search that
        teaches it (``agents.teacher.make_teacher``); None: ``policy`` plays them."""
        super().__init__(seed)
        # needs torch (the train extra): imported only when a network is used
        from agents.neural.policy import PolicyAgent

        playouts = rollout or policy
        if not isinstance(policy, PolicyAgent) or not isinstance(playouts, PolicyAgent):
            raise TypeError(f"netsearch needs policy bundles, got {type(policy).__name__}, {type(playouts).__name__}")
        self.config = config
        self.policy = policy
        leaf_values = None
        belief_net = playouts.net
        if config.leaves == "critic":
            # needs torch (the train extra), like the policy itself
            from agents.search_player.critic_leaves import critic_values

            if not policy.net.spec.privileged_critic:
                raise ConfigError(
                    f"netsearch param leaves 'critic' needs a policy with a privileged critic; {config.policy} has none"
                )
            leaf_values = partial(critic_values, policy.net)
        elif config.leaves == "policy":
            # needs torch (the train extra), like the policy itself
            from agents.search_player.policy_leaves import playout_net, policy_values

            self.rollout = playouts
            belief_net = playout_net(playouts.net, config.precision)
            leaf_values = partial(policy_values, belief_net)
        weigh = None
        if config.belief:
            # needs torch (the train extra), like the policy itself
            from agents.search_player.beliefs import world_weights

            weigh = partial(world_weights, belief_net, config.belief, config.belief_mix)
        self.search = SearchAgent(seed, config.search, leaf_values, weigh)
        self.last_stats: dict[str, Any] = {}

    def reset(self, seed: int) -> None:
        super().reset(seed)
        self.search.reset(seed)
        self.policy.reset(seed)

    def describe(self) -> dict[str, Any]:
        return {"agent": self.name, "params": self.config.to_dict(), "policy": self.policy.describe()}

    def act(self, view: PlayerView) -> int:
        return self.judge(view).action

    def judge(self, view: PlayerView) -> Judgement:
        """The action and, for a searched choice, every legal action's value (and a card's
        errors; under ``prune`` the searched cards' only, so labels give the others no
        weight), as ``SearchAgent.judge`` gives them: the labelling of positions
        (``train.labels``, expert iteration's teacher) turns the values into targets."""
        if view.phase != PLAY:
            if self.config.bidding == "network":
                return Judgement(self.policy.act(view))
            if self.config.search.calls == "searched":
                return Judgement(*self._searched_call(view))
            return Judgement(self.search.act(view))  # the heuristic's bars (R3, R4)
        legal = cards_of(view.legal_mask)
        if len(legal) == 1:
            return Judgement(legal[0])
        if self.search.config.backend != "core":
            values = self.search.evaluate(view)
            self.last_stats = self.search.last_stats
            return Judgement(self.pick(view, values), values)
        logp = None
        if self.config.prune:
            logp = self.log_policy(view)  # asked once: the candidates, then a tie's break
            legal = self.candidates(view, logp)
            if len(legal) == 1:
                return Judgement(legal[0])
        found = self.search.card_values(view, self.search.rng, legal)
        self.last_stats = self.search.last_stats
        values = found.values()
        action = self.pick(view, values, logp)
        return Judgement(action, values, found.gap_errors(action))

    def candidates(self, view: PlayerView, logp: np.ndarray | None = None) -> list[int]:
        """The legal cards searched under ``prune``: those the network gives at least ``prune``
        of its probability, and its favourite (the lowest card id among equal favourites);
        ``logp``: the network's ``log_policy`` of the view, if already asked."""
        probs = np.exp(self.log_policy(view) if logp is None else logp)
        legal = cards_of(view.legal_mask)
        best = max(legal, key=lambda c: (probs[c], -c))
        return [c for c in legal if c == best or probs[c] >= self.config.prune]

    def pick(self, view: PlayerView, values: dict[int, float], logp: np.ndarray | None = None) -> int:
        """The card ``judge`` plays given the searched cards' values (``choose``); ``logp`` as
        ``candidates`` takes it."""
        legal = [c for c in cards_of(view.legal_mask) if c in values]
        if not self.config.prior:
            best = max(values.values())
            tied = [c for c in legal if values[c] == best]
            if len(tied) == 1:
                return tied[0]  # no tie to break: the network is not asked (no forward pass)
        return choose(legal, values, self.log_policy(view) if logp is None else logp, self.config.prior)

    def _searched_call(self, view: PlayerView) -> tuple[int, dict[int, float] | None]:
        """The call (R3, R4) with the best searched value plus ``bid_prior`` times the network's
        log-probability, and every legal call's value (None when only one is legal)."""
        legal = cards_of(view.legal_mask)
        if len(legal) == 1:
            return legal[0], None
        values, used = self.search.call_values(view)
        self.last_stats = {"worlds": used, "call_values": values}
        return choose(legal, values, self.log_policy(view), self.config.bid_prior), values

    def log_policy(self, view: PlayerView) -> np.ndarray:
        """The network's log-probabilities of the 42 actions for this view (-inf when illegal)."""
        probs = self.policy.probabilities(view.observation()[None], view.action_mask()[None])[0]
        with np.errstate(divide="ignore"):
            out: np.ndarray = np.log(probs)
            return out


def choose(legal: list[int], values: dict[int, float], logp: np.ndarray, prior: float) -> int:
    """The card with the best ``value + prior * log pi``; exact ties go to the network's favourite,
    then to the lowest card id (deterministic)."""
    best: tuple[float, float, int] | None = None
    pick = legal[0]
    for card in legal:
        key = (values[card] + prior * float(logp[card]) if prior else values[card], float(logp[card]), -card)
        if best is None or key > best:
            best, pick = key, card
    return pick

"""Suit permutations of observations, masks and actions: data augmentation for the warm start.

Why: the rules treat the four suits alike (R1: every suit has the same ranks; in Hokum the
trump is whichever suit was called, R1.3/R3), so renaming the suits by a permutation maps a
position to an equally valid one whose correct answer is the renamed answer. Imitation data
labelled by an expensive teacher (``search``) is thereby worth up to 24 times more, and the
network is taught that a card's meaning comes from its suit's role (trump, led suit), not from
its name. The only suit-named parts of the observation (``baloot_env.observation.PIECES``) are
the card pieces (card ids ``8 * suit + rank``, R1.2), the turned card, the round-1/round-2 call
one-hots (``hokum S/H/D/C``), the trump one-hot and the per-seat voids; of the actions (R9),
the 32 cards and the four ``hokum`` calls. The privileged critic's extra input (four hands of
32 cards) is permuted like the card pieces.

``SuitPermutations.apply(obs, masks, actions, perm)`` permutes a batch, each row by its own
permutation; ``tests/train/test_augment.py`` checks it against encoding a renamed game.
"""

from __future__ import annotations

import itertools

import numpy as np
import torch

from baloot_env.actions import HOKUM_BASE, NUM_ACTIONS
from baloot_env.observation import OBS_SIZE, PIECES, piece_slice

PERMUTATIONS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(4)))  # perm[s] = new suit of s


def permute_card(card: int, perm: tuple[int, ...]) -> int:
    """The card ``card`` with its suit renamed by ``perm`` (R1.2 ids)."""
    return 8 * perm[card // 8] + card % 8


def permute_action(action: int, perm: tuple[int, ...]) -> int:
    """An R9 action with its suit renamed: cards and ``hokum`` calls move, the rest stay."""
    if action < 32:
        return permute_card(action, perm)
    if HOKUM_BASE <= action < HOKUM_BASE + 4:
        return HOKUM_BASE + perm[action - HOKUM_BASE]
    return action


class SuitPermutations:
    """Index tables for all 24 suit permutations of vectors of width ``width``.

    ``width`` is ``OBS_SIZE`` or ``OBS_SIZE + 128`` (the privileged critic's four hands follow
    the observation). Row ``k`` of ``obs_index`` gathers the permuted vector from the original
    (``new = old[obs_index[k]]``); ``action_map[k]`` sends an action to its renamed action and
    ``action_index[k]`` gathers a permuted mask (``new_mask = old_mask[action_index[k]]``).
    """

    def __init__(self, width: int = OBS_SIZE):
        if width not in (OBS_SIZE, OBS_SIZE + 128):
            raise ValueError(f"width must be {OBS_SIZE} or {OBS_SIZE + 128} (with the privileged hands), got {width}")
        self.width = width
        card_blocks = [piece_slice(p.name).start for p in PIECES if p.size == 32]
        if width > OBS_SIZE:
            card_blocks += [OBS_SIZE + 32 * k for k in range(4)]
        call_blocks = [
            piece_slice(name).start + 6 * seat + 1 for name in ("bids_round_1", "bids_round_2") for seat in range(4)
        ]
        suit_blocks = [piece_slice("trump").start] + [piece_slice("voids").start + 4 * seat for seat in range(4)]
        obs_index = np.tile(np.arange(width), (len(PERMUTATIONS), 1))
        action_map = np.tile(np.arange(NUM_ACTIONS), (len(PERMUTATIONS), 1))
        for k, perm in enumerate(PERMUTATIONS):
            for a in range(NUM_ACTIONS):
                action_map[k, a] = permute_action(a, perm)
            for start in card_blocks:
                for c in range(32):
                    obs_index[k, start + permute_card(c, perm)] = start + c
            for start in call_blocks + suit_blocks:
                for s in range(4):
                    obs_index[k, start + perm[s]] = start + s
        self.obs_index = torch.from_numpy(obs_index)
        self.action_map = torch.from_numpy(action_map)
        self.action_index = torch.from_numpy(np.argsort(action_map, axis=1))

    def apply(
        self, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor, perm: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Rows permuted by ``PERMUTATIONS[perm[i]]``: ``(obs, masks, actions)`` renamed alike.

        ``actions`` may be action ids (N) or per-action targets (N x 42, e.g. soft labels).
        """
        obs = torch.gather(obs, 1, self.obs_index[perm])
        masks = torch.gather(masks, 1, self.action_index[perm])
        if actions.ndim == 1:
            actions = self.action_map[perm].gather(1, actions[:, None])[:, 0]
        else:
            actions = self.rename_actions(actions, perm)
        return obs, masks, actions

    def rename_actions(self, per_action: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
        """Per-action rows (N x 42: targets, the teacher's values) renamed as ``apply`` renames them."""
        return torch.gather(per_action, 1, self.action_index[perm])

"""Suit permutations (train.augment): renaming the suits of a whole game (deal and every action)
gives exactly the permuted observation, mask and action of the original (R1.2 ids, R9 actions;
the rules are symmetric in the suits, R1.3, R3)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_env.deal import Deal, random_deal
from baloot_env.hand import HandState
from baloot_env.observation import OBS_SIZE, action_mask, encode
from train.augment import PERMUTATIONS, SuitPermutations, permute_action, permute_card

AUG = SuitPermutations(OBS_SIZE + 128)


def renamed_deal(deal: Deal, perm: tuple[int, ...]) -> Deal:
    return Deal(
        dealer=deal.dealer,
        hands=tuple(tuple(permute_card(c, perm) for c in h) for h in deal.hands),
        turned=permute_card(deal.turned, perm),
        stock=tuple(permute_card(c, perm) for c in deal.stock),
    )


def privileged(state: HandState, seat: int) -> np.ndarray:
    h = np.array([state.hands[(seat + j) % 4] for j in range(4)], dtype="<u4")
    return np.unpackbits(h.view(np.uint8), bitorder="little").astype(np.float32)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(0, 23))
def test_renamed_game_gives_permuted_observations(seed: int, k: int) -> None:
    rng = random.Random(seed)
    perm = PERMUTATIONS[k]
    deal = random_deal(rng)
    a, b = HandState(deal), HandState(renamed_deal(deal, perm))
    checked = 0
    while not a.done:
        seat = a.to_act
        obs = np.concatenate([encode(a, seat), privileged(a, seat)])
        mask = action_mask(a, seat)
        action = rng.choice(a.legal_actions())
        got_obs, got_mask, got_action = AUG.apply(
            torch.from_numpy(obs[None]), torch.from_numpy(mask[None]), torch.tensor([action]), torch.tensor([k])
        )
        assert np.array_equal(got_obs[0].numpy(), np.concatenate([encode(b, seat), privileged(b, seat)]))
        assert np.array_equal(got_mask[0].numpy(), action_mask(b, seat))
        assert int(got_action[0]) == permute_action(action, perm)
        a.apply(action)
        b.apply(permute_action(action, perm))  # legal in the renamed game, else this raises
        checked += 1
    assert checked > 0
    assert a.result.score == b.result.score  # the renamed game scores the same (R7)


def test_identity_and_soft_targets() -> None:
    obs = torch.rand(3, OBS_SIZE + 128)
    masks = torch.randint(0, 2, (3, 42), dtype=torch.int8)
    soft = torch.rand(3, 42)
    ident = torch.zeros(3, dtype=torch.long)  # PERMUTATIONS[0] is the identity
    o, m, s = AUG.apply(obs, masks, soft, ident)
    assert torch.equal(o, obs) and torch.equal(m, masks) and torch.equal(s, soft)
    k = torch.tensor([5, 5, 5])
    _, m2, s2 = AUG.apply(obs, masks, soft, k)
    # soft targets move with the actions: the mass on each renamed action is the original's
    for a in range(42):
        b = permute_action(a, PERMUTATIONS[5])
        assert torch.equal(s2[:, b], soft[:, a]) and torch.equal(m2[:, b], masks[:, a])


def test_bad_width_is_refused() -> None:
    with pytest.raises(ValueError, match="width must be"):
        SuitPermutations(OBS_SIZE + 1)

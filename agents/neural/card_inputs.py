"""How a network reads the observation's card-set pieces: the input designs of ``NetSpec.cards``.

The observation opens with 17 card-set pieces of 32 bits each (``baloot_env.observation.CARD_PIECES``:
the hand, the turned card, the cards each seat played, the trick's cards, the trumps each seat
cannot hold, the project cards), 544 of its 697 inputs. A plain first layer (``flat``) gives each
of them a weight per unit, which is most of a small network's parameters; the other designs read
them through weights shared where the rules are symmetric, so a small budget buys width instead:

- ``flat``: the observation as it is (every network before these designs).
- ``cards``: each card's 17 bits (where it is: in my hand, played by a seat, in the trick, a
  trump a seat cannot hold, a project card) through one small table shared by all cards
  (17 x ``card_width``), plus an embedding of the card itself (32 x ``card_width``), ReLU:
  32 x ``card_width`` features in card order.
- ``suits``: each suit's 17 x 8 bits, with whether it is trump and which seats are void in it
  (R5.2, R5.4), through one layer shared by the four suits (the rules are the same for every
  suit, R1): 4 x ``card_width`` features in suit order.

Either way the other 153 inputs (calls, contract, seats, scores) follow unchanged, and the
trunk reads the whole.
"""

from __future__ import annotations

import torch
from torch import nn

from baloot_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from baloot_env.observation import CARD_PIECES, piece_slice
from baloot_env.seats import NUM_SEATS

CARD_DESIGNS = ("flat", "cards", "suits")
NUM_CARD_PIECES = len(CARD_PIECES)
CARD_BLOCK = NUM_CARD_PIECES * NUM_CARDS  # the observation's first 544 inputs
_TRUMP, _VOIDS = piece_slice("trump"), piece_slice("voids")
SUIT_CONTEXT = 1 + NUM_SEATS  # per suit: trump, and void at each relative seat


def reader_width(design: str, card_width: int, obs_size: int) -> int:
    """How many features the trunk reads under ``design``."""
    if design == "flat":
        return obs_size
    per = NUM_CARDS if design == "cards" else NUM_SUITS
    return per * card_width + obs_size - CARD_BLOCK


class CardReader(nn.Module):
    """The ``cards`` or ``suits`` design of the module docstring: observation -> trunk input."""

    def __init__(self, design: str, card_width: int):
        super().__init__()
        if design not in CARD_DESIGNS[1:]:
            raise ValueError(f"a card reader is one of {CARD_DESIGNS[1:]}, got {design!r}")
        self.design = design
        if design == "cards":
            self.table = nn.Linear(NUM_CARD_PIECES, card_width, bias=False)
            self.card = nn.Parameter(torch.randn(NUM_CARDS, card_width) * 0.1)
        else:
            self.table = nn.Linear(NUM_CARD_PIECES * NUM_RANKS + SUIT_CONTEXT, card_width)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        lead = obs.shape[:-1]
        bits = obs[..., :CARD_BLOCK].reshape(*lead, NUM_CARD_PIECES, NUM_CARDS)
        if self.design == "cards":
            h = torch.relu(self.table(bits.transpose(-1, -2)) + self.card)  # ... x 32 x width
        else:
            by_suit = bits.reshape(*lead, NUM_CARD_PIECES, NUM_SUITS, NUM_RANKS).transpose(-3, -2)
            trump = obs[..., _TRUMP].unsqueeze(-1)  # ... x 4 suits x 1
            voids = obs[..., _VOIDS].reshape(*lead, NUM_SEATS, NUM_SUITS).transpose(-1, -2)  # suits x seats
            x = torch.cat([by_suit.reshape(*lead, NUM_SUITS, NUM_CARD_PIECES * NUM_RANKS), trump, voids], dim=-1)
            h = torch.relu(self.table(x))  # ... x 4 x width
        return torch.cat([h.reshape(*lead, -1), obs[..., CARD_BLOCK:]], dim=-1)

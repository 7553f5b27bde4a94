"""A network grown wider without changing what it computes.

Expert iteration's students reach about 89% of their teacher's own agreement at the champion's
size; a wider network may hold more of it (issue 45: "capacity within 0.5 ms"). Training a wider
one from nothing would throw away the campaign's rounds, and distilling into it loses a little
on the way. Widening keeps every number: each layer of the wider network holds the narrower
one's weights in the rows of the units they had and, from the inputs those units read, zeros
from the new inputs; the new units keep their fresh random weights (so they are not dead and
their own weights start learning at the first step); the heads' last layers read no new unit.
So the wider network's logits and value equal the narrower one's for every input, and the fit
that follows decides what the new units do (as Net2Net's function-preserving growth; here the
new units' outgoing weights are zero rather than split copies).
"""

from __future__ import annotations

import torch
from torch import nn

from agents.neural.network import BalootNet, NetSpec, _linears
from baloot_env.observation import PRIVILEGED_SIZE


def widens(narrow: NetSpec, wide: NetSpec) -> bool:
    """Whether ``wide`` is ``narrow`` with some layers wider (``widen`` can grow one into the
    other): the same observation, cards read flat, the same critic and the same number of layers,
    each at least as wide, and not the same architecture."""
    same = (
        narrow.obs_size == wide.obs_size
        and narrow.cards == wide.cards == "flat"
        and narrow.privileged_critic == wide.privileged_critic
        and len(narrow.trunk) == len(wide.trunk)
        and len(narrow.value_hidden) == len(wide.value_hidden)
    )
    wider = (
        all(a <= b for a, b in zip(narrow.trunk, wide.trunk, strict=False))
        and all(a <= b for a, b in zip(narrow.value_hidden, wide.value_hidden, strict=False))
        and narrow.head_hidden <= wide.head_hidden
    )
    return same and wider and narrow != wide


def widen(narrow: BalootNet, wide: BalootNet) -> None:
    """Write ``narrow``'s weights into ``wide`` (freshly initialised, of an architecture that
    ``widens`` it) so that ``wide`` computes what ``narrow`` does (module docstring).

    Raises:
        ValueError: ``wide``'s architecture does not widen ``narrow``'s.
    """
    if not widens(narrow.spec, wide.spec):
        raise ValueError(
            f"a network of {wide.spec.to_dict()} does not widen one of {narrow.spec.to_dict()} "
            "(the same inputs, critic and layers, each at least as wide)"
        )
    trunk_out = narrow.spec.trunk[-1]
    value_in = torch.arange(trunk_out)
    if narrow.spec.privileged_critic:  # the hidden hands follow the trunk's features
        value_in = torch.cat([value_in, wide.spec.trunk[-1] + torch.arange(PRIVILEGED_SIZE)])
    chains = [
        (narrow.trunk, wide.trunk, torch.arange(narrow.spec.obs_size)),
        (narrow.card_head, wide.card_head, torch.arange(trunk_out)),
        (narrow.bid_head, wide.bid_head, torch.arange(trunk_out)),
        (
            nn.Sequential(*narrow.value_body, narrow.value_out),
            nn.Sequential(*wide.value_body, wide.value_out),
            value_in,
        ),
    ]
    with torch.no_grad():
        for small, big, inputs in chains:
            for a, b in zip(_linears(small), _linears(big), strict=True):
                outputs = torch.arange(a.out_features)
                b.weight[outputs] = 0.0  # the units the narrow layer had read no new input
                b.weight[outputs[:, None], inputs[None, :]] = a.weight
                b.bias[outputs] = a.bias
                inputs = outputs  # the next layer reads these units where this one wrote them

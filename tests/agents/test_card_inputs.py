"""The input designs of ``NetSpec.cards``: each reads the card pieces as its docstring says,
the shared weights respect the suits' symmetry, and the networks save, load and export."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.neural.bundle import BundleError, load_net, manifest_digest, save_bundle
from agents.neural.card_inputs import CARD_BLOCK, NUM_CARD_PIECES, CardReader, reader_width
from agents.neural.network import BalootNet, NetSpec, StackedNets
from agents.neural.positions import collect_positions
from agents.random_agent import RandomAgent
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from baloot_env.observation import OBS_SIZE, piece_slice
from baloot_env.seats import NUM_SEATS


@pytest.fixture(scope="module")
def observations() -> np.ndarray:
    """Real observations of every phase, Hokum and Sun hands among them."""
    return collect_positions(300, [HeuristicAgent(0), RandomAgent(0)], seed=5, epsilon=0.2).observations


def permute_suits(obs: np.ndarray, order: list[int]) -> np.ndarray:
    """The observations with suit ``s`` renamed ``order[s]`` in every piece the suit reader reads:
    the 17 card pieces (card = 8 x suit + rank, R1.2), the trump one-hot and the voids."""
    out = obs.copy()
    cards = obs[:, :CARD_BLOCK].reshape(len(obs), NUM_CARD_PIECES, NUM_SUITS, NUM_RANKS)
    trump = obs[:, piece_slice("trump")]
    voids = obs[:, piece_slice("voids")].reshape(len(obs), NUM_SEATS, NUM_SUITS)
    new_cards, new_trump, new_voids = np.zeros_like(cards), np.zeros_like(trump), np.zeros_like(voids)
    for s, t in enumerate(order):
        new_cards[:, :, t] = cards[:, :, s]
        new_trump[:, t] = trump[:, s]
        new_voids[:, :, t] = voids[:, :, s]
    out[:, :CARD_BLOCK] = new_cards.reshape(len(obs), -1)
    out[:, piece_slice("trump")] = new_trump
    out[:, piece_slice("voids")] = new_voids.reshape(len(obs), -1)
    return out


def test_the_suit_reader_gives_each_suit_the_same_weights(observations):
    """Renaming the suits renames the reader's suit blocks and changes nothing else."""
    torch.manual_seed(0)
    reader, width = CardReader("suits", 6), 6
    order = [2, 0, 3, 1]
    assert np.any(observations[:, piece_slice("trump")]) and np.any(observations[:, piece_slice("voids")])
    with torch.no_grad():
        a = reader(torch.from_numpy(observations)).numpy()
        b = reader(torch.from_numpy(permute_suits(observations, order))).numpy()
    blocks_a = a[:, : NUM_SUITS * width].reshape(len(a), NUM_SUITS, width)
    blocks_b = b[:, : NUM_SUITS * width].reshape(len(b), NUM_SUITS, width)
    for s, t in enumerate(order):
        np.testing.assert_allclose(blocks_b[:, t], blocks_a[:, s], atol=1e-6)
    assert not np.allclose(blocks_a[:, 0], blocks_a[:, 1])  # the blocks do differ by suit
    np.testing.assert_array_equal(a[:, NUM_SUITS * width :], observations[:, CARD_BLOCK:])


def test_a_suits_block_reads_that_suits_cards_trump_and_voids_only():
    torch.manual_seed(1)
    reader, width = CardReader("suits", 4), 4
    with torch.no_grad():
        reader.table.weight.fill_(0.5)  # every input raises every feature: any read shows
    base = torch.zeros(1, OBS_SIZE)
    for where in (
        8 * NUM_CARDS + 8 * 1 + 3,  # played_me (piece 2): the ten of hearts
        piece_slice("trump").start + 1,  # hearts are trumps
        piece_slice("voids").start + NUM_SUITS * 2 + 1,  # my partner is void in hearts
    ):
        obs = base.clone()
        obs[0, where] = 1.0
        with torch.no_grad():
            delta = (reader(obs) - reader(base))[0, : NUM_SUITS * width].reshape(NUM_SUITS, width)
        assert torch.all(delta[1] > 0) and torch.all(delta[[0, 2, 3]] == 0), where


def test_a_cards_block_is_its_cards_17_bits_through_the_shared_table():
    """Hand-worked: feature j of card c is relu(sum over pieces k of bit(k, c) x table[j, k] + card[c, j])."""
    reader = CardReader("cards", 3)
    with torch.no_grad():
        reader.table.weight.copy_(torch.arange(3 * NUM_CARD_PIECES, dtype=torch.float32).reshape(3, NUM_CARD_PIECES))
        reader.card.copy_(-torch.arange(NUM_CARDS * 3, dtype=torch.float32).reshape(NUM_CARDS, 3))
    obs = torch.zeros(1, OBS_SIZE)
    obs[0, 0 * NUM_CARDS + 5] = 1.0  # the king of spades is in my hand (piece 0)...
    obs[0, 13 * NUM_CARDS + 5] = 1.0  # ...and in my project (piece 13)
    obs[0, 4 * NUM_CARDS + 9] = 1.0  # my partner played the eight of hearts (piece 4)
    with torch.no_grad():
        out = reader(obs)[0, : NUM_CARDS * 3].reshape(NUM_CARDS, 3)
    table = np.arange(3 * NUM_CARD_PIECES).reshape(3, NUM_CARD_PIECES)
    for card, pieces in ((5, (0, 13)), (9, (4,)), (0, ())):
        want = [max(0, sum(table[j, k] for k in pieces) - (3 * card + j)) for j in range(3)]
        assert out[card].tolist() == want, card
    assert out[5].tolist() == [0, 31, 64] and out[9].tolist() == [0, 0, 9]  # the sums worked by hand
    assert out[[c for c in range(NUM_CARDS) if c not in (5, 9)]].abs().sum() == 0


@pytest.mark.parametrize("design", ["cards", "suits"])
def test_networks_of_each_design_save_load_and_export(design, observations, tmp_path):
    spec = NetSpec(trunk=(24,), head_hidden=8, value_hidden=(8,), cards=design, card_width=5)
    torch.manual_seed(2)
    net = BalootNet(spec).eval()
    assert net.trunk[0].in_features == reader_width(design, 5, OBS_SIZE) < OBS_SIZE
    bundle = save_bundle(tmp_path / "bundle", net, name=f"{design}-net")
    loaded, manifest = load_net(bundle)
    assert manifest["net"]["cards"] == design and loaded.spec == spec
    obs = torch.from_numpy(observations)
    masks = torch.ones(len(obs), 42)
    with torch.no_grad():
        for a, b in zip(net(obs, masks), loaded(obs, masks), strict=True):
            torch.testing.assert_close(a, b)
    pytest.importorskip("onnxruntime")
    from agents.neural.export import check_parity, export_onnx

    export_onnx(bundle, tmp_path / "model.onnx")
    par = check_parity(tmp_path / "model.onnx", loaded, observations, np.ones((len(obs), 42), dtype=np.int8))
    assert par.ok, par


def test_a_manifest_from_before_the_designs_reads_flat_and_a_wrong_design_is_refused(tmp_path):
    bundle = save_bundle(tmp_path / "b", BalootNet(NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,))), name="old")
    manifest_file = bundle / "manifest.json"
    manifest = json.loads(manifest_file.read_text())

    def write(manifest: dict) -> None:
        manifest_file.write_text(json.dumps({**manifest, "manifest_sha256": manifest_digest(manifest)}))

    for key in ("cards", "card_width"):
        del manifest["net"][key]
    write(manifest)
    assert load_net(bundle)[0].spec.cards == "flat"
    manifest["net"]["cards"] = "ranks"
    write(manifest)
    with pytest.raises(BundleError, match="cards must be one of flat, cards, suits"):
        load_net(bundle)
    with pytest.raises(ValueError, match="card_width"):
        NetSpec(cards="suits", card_width=0)


def test_a_stack_refuses_networks_that_do_not_read_the_cards_flat():
    net = BalootNet(NetSpec(trunk=(8,), head_hidden=8, value_hidden=(8,), cards="suits"))
    with pytest.raises(ValueError, match="flat"):
        StackedNets([net])

"""Policy bundles: verified before use, refused with a message naming the problem,
one log line after verification, array-level play without stable-baselines3."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from shared import EVAL, SMALL_NET, make_bundle

from agents.neural.bundle import (
    MANIFEST,
    WEIGHTS,
    BundleError,
    _write_manifest,
    bundle_rules,
    load_net,
    load_policy,
    read_manifest,
    save_bundle,
    update_evaluations,
)
from agents.neural.network import BalootNet, NetSpec
from agents.neural.policy import sample_masked
from agents.neural.positions import collect_positions
from agents.registry import AgentSpecError, make_agent
from agents.rule_based.heuristic import HeuristicAgent
from baloot_env.observation import OBS_VERSION
from baloot_env.rules import RuleConfig

SMALL = NetSpec(**SMALL_NET)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def positions():
    return collect_positions(300, [HeuristicAgent(0)], seed=5, epsilon=0.2)


def edit_manifest(folder: Path, **changes) -> None:
    """Change manifest values and renew the manifest checksum, as a forger who knows the scheme would."""
    m = json.loads((folder / MANIFEST).read_text())
    m.update(changes)
    _write_manifest(folder, m)


def test_round_trip_keeps_weights_and_manifest_fields(tmp_path):
    torch.manual_seed(0)
    net = BalootNet(SMALL)
    rules = RuleConfig(sun_double=True, deal_rotation="right")
    save_bundle(tmp_path / "b", net, name="tiny", rules=rules, training={"lr": 1e-3}, evaluations=[EVAL])
    loaded, m = load_net(tmp_path / "b")
    for (k, a), (_, b) in zip(net.state_dict().items(), loaded.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    assert m["obs_version"] == OBS_VERSION and m["action_version"] == 1 and m["env"] == "baloot_v0"
    assert m["net"] == SMALL.to_dict() and bundle_rules(m) == rules and m["training"] == {"lr": 1e-3}
    assert m["parameters"] == sum(p.numel() for p in net.parameters())
    assert len(m["weights_sha256"]) == 64 and len(m["manifest_sha256"]) == 64
    assert m["evaluations"][0]["ci95"] == [0.5, 2.0] and "checksum" in m["evaluations"][0]


@pytest.mark.parametrize("offset", [0, 200, -1])
def test_one_flipped_byte_in_the_weights_is_refused(tmp_path, offset):
    folder = make_bundle(tmp_path / "b")
    data = bytearray((folder / WEIGHTS).read_bytes())
    data[offset] ^= 0x01
    (folder / WEIGHTS).write_bytes(bytes(data))
    with pytest.raises(BundleError, match="weights.pt has SHA-256 .* corrupt or was replaced"):
        load_policy(folder)


def test_one_flipped_byte_in_the_manifest_is_refused(tmp_path):
    folder = make_bundle(tmp_path / "b", name="tinyA")
    text = (folder / MANIFEST).read_text()
    (folder / MANIFEST).write_text(text.replace('"tinyA"', '"tinyB"'))  # one bit: A (0x41) -> B (0x42)... two
    with pytest.raises(BundleError, match="does not match its manifest_sha256"):
        load_policy(folder)
    raw = bytearray((folder / MANIFEST).read_bytes())
    raw[0] ^= 0x01  # "{" -> "z": no longer JSON
    (folder / MANIFEST).write_bytes(bytes(raw))
    with pytest.raises(BundleError, match="manifest.json is corrupt"):
        load_policy(folder)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("obs_version", OBS_VERSION + 1, f"obs_version {OBS_VERSION + 1}; this code has OBS_VERSION {OBS_VERSION}"),
        ("action_version", 0, "action_version 0; this code has ACTION_VERSION 1"),
        ("env", "baloot_v9", "env 'baloot_v9'; this code has the environment 'baloot_v0'"),
        ("obs_size", 700, "obs_size 700; this code has OBS_SIZE"),
    ],
)
def test_wrong_versions_are_refused_naming_them(tmp_path, key, value, message):
    folder = make_bundle(tmp_path / "b")
    edit_manifest(folder, **{key: value})
    with pytest.raises(BundleError, match=message):
        load_policy(folder)


def test_wrong_version_with_a_renewed_manifest_checksum_is_still_refused(tmp_path):
    folder = make_bundle(tmp_path / "b")
    m = json.loads((folder / MANIFEST).read_text())
    m["obs_version"] = 0
    _write_manifest(folder, m)
    with pytest.raises(BundleError, match="obs_version 0"):
        read_manifest(folder)


@pytest.mark.parametrize(("missing", "message"), [(WEIGHTS, "has no weights.pt"), (MANIFEST, "has no manifest.json")])
def test_missing_files_are_refused_naming_them(tmp_path, missing, message):
    folder = make_bundle(tmp_path / "b")
    (folder / missing).unlink()
    with pytest.raises(BundleError, match=message):
        load_policy(folder)
    with pytest.raises(BundleError, match="does not exist"):
        load_policy(tmp_path / "nowhere")


def test_architecture_mismatch_is_refused_before_loading(tmp_path):
    folder = make_bundle(tmp_path / "b")
    m = json.loads((folder / MANIFEST).read_text())
    m["net"]["trunk"] = [32]
    _write_manifest(folder, m)
    with pytest.raises(
        BundleError, match=r"do not fit the manifest's architecture.*trunk.0.weight has shape \[16, 697\]"
    ):
        load_policy(folder)
    m["net"] = {"trunk": "wide"}
    _write_manifest(folder, m)
    with pytest.raises(BundleError, match="malformed architecture"):
        load_policy(folder)


def test_nothing_is_logged_as_loaded_before_verification(tmp_path, caplog):
    folder = make_bundle(tmp_path / "b")
    data = bytearray((folder / WEIGHTS).read_bytes())
    data[100] ^= 0x80
    (folder / WEIGHTS).write_bytes(bytes(data))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(BundleError):
        load_policy(folder)
    assert not [r for r in caplog.records if "loaded" in r.getMessage().lower()]


def test_a_good_bundle_logs_exactly_one_line_with_name_checksum_and_evaluation(tmp_path, caplog):
    folder = make_bundle(tmp_path / "b", name="tiny-champion")
    sha = read_manifest(folder)["weights_sha256"]
    caplog.set_level(logging.DEBUG, logger="baloot.bundle")
    load_policy(folder)
    lines = [r.getMessage() for r in caplog.records if r.name == "baloot.bundle"]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "loaded policy tiny-champion" in lines[0] and sha in lines[0]
    assert "vs heuristic +1.25 [+0.50, +2.00] on 64 deals of small (4d167d1984c8)" in lines[0]


def test_update_evaluations_renews_the_manifest_checksum(tmp_path):
    folder = make_bundle(tmp_path / "b", evaluations=[])
    update_evaluations(folder, [EVAL | {"mean": -0.5}])
    assert load_policy(folder).manifest["evaluations"][0]["mean"] == -0.5


def test_loading_does_not_import_stable_baselines3(tmp_path):
    folder = make_bundle(tmp_path / "b")
    code = (
        "import sys, numpy as np, agents\n"
        f"p = agents.load_policy({str(folder)!r})\n"
        "obs = np.zeros(697, np.float32); mask = np.zeros(42, np.int8); mask[32] = mask[37] = 1\n"
        "assert p.act(obs, mask) in (32, 37)\n"
        "assert 'stable_baselines3' not in sys.modules and 'sb3_contrib' not in sys.modules, 'sb3 imported'\n"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_act_on_arrays_greedy_and_sampled_is_legal_and_seeded(tmp_path, positions):
    folder = make_bundle(tmp_path / "b")
    obs, masks = positions.observations, positions.masks
    greedy = load_policy(folder)
    acts = greedy.act_arrays(obs, masks)
    assert all(masks[i, a] for i, a in enumerate(acts))
    assert [greedy.act(obs[i], masks[i]) for i in range(20)] == acts[:20]  # single = batched
    logits, value = greedy.logits_and_value(obs, masks)
    assert acts == [int(a) for a in logits.argmax(axis=1)] and value.shape == (len(obs),)
    probs = greedy.probabilities(obs, masks)
    assert np.allclose(probs.sum(axis=1), 1) and (probs[masks == 0] == 0).all()
    sampled = load_policy(folder, seed=3, deterministic=False)
    s1 = sampled.act_arrays(obs, masks)
    assert all(masks[i, a] for i, a in enumerate(s1))
    sampled.reset(3)
    assert sampled.act_arrays(obs, masks) == s1
    assert s1 != acts  # a random net's policy is spread: sampling differs from greedy somewhere
    assert sampled.act_arrays(obs, masks, deterministic=True) == acts


def test_act_rejects_bad_shapes_and_empty_masks(tmp_path):
    p = load_policy(make_bundle(tmp_path / "b"))
    with pytest.raises(ValueError, match="at least one legal action"):
        p.act(np.zeros(697, np.float32), np.zeros(42, np.int8))
    with pytest.raises(ValueError, match=r"shape \(N, 697\)"):
        p.act(np.zeros(696, np.float32), np.ones(42, np.int8))
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        p.act(np.zeros(697, np.float32))


def test_policy_plays_whole_hands_through_the_agent_interface_via_make_agent(tmp_path):
    from eval.deals import load_named
    from eval.duplicate import play_deal

    folder = make_bundle(tmp_path / "b")
    agent = make_agent(str(folder), seed=1)
    assert agent.name == "tiny" and agent.deterministic
    deal = load_named("small").deals[0]
    rec = play_deal(0, deal, agent, HeuristicAgent(0), seed=0, rules=None)  # AgentError on any illegal move
    assert len(rec.tables) == 2
    (folder / WEIGHTS).write_bytes(b"not weights")
    with pytest.raises(AgentSpecError, match="corrupt or was replaced"):
        make_agent(str(folder))


# ---------------------------------------------------------------- forged or malformed manifests
def test_a_manifest_without_its_checksum_is_refused(tmp_path, caplog):
    """Deleting manifest_sha256 used to switch the integrity check off, so an edited manifest
    could show forged evaluation figures in the load line."""
    folder = make_bundle(tmp_path / "b")
    m = json.loads((folder / MANIFEST).read_text())
    m["evaluations"][0]["mean"] = 9.99
    del m["manifest_sha256"]
    (folder / MANIFEST).write_text(json.dumps(m))
    caplog.set_level(logging.DEBUG, logger="baloot.bundle")
    with pytest.raises(BundleError, match="no manifest_sha256"):
        load_policy(folder)
    with pytest.raises(BundleError, match="no manifest_sha256"):
        read_manifest(folder)
    assert not [r for r in caplog.records if "9.99" in r.getMessage()]


def _without(key: str) -> dict:
    return {k: v for k, v in EVAL.items() if k != key}


MALFORMED_EVALUATIONS = [
    "vs heuristic +9.99",
    {"opponent": "heuristic"},
    None,
    5,
    [5],
    ["x"],
    [None],
    [[EVAL]],
    [EVAL, 7],
    [_without("mean")],
    [EVAL | {"mean": "9.99"}],
    [EVAL | {"mean": True}],
    [EVAL | {"mean": None}],
    [EVAL | {"mean": [1.0]}],
    [_without("ci95")],
    [EVAL | {"ci95": [1.0]}],
    [EVAL | {"ci95": [0.5, 2.0, 3.0]}],
    [EVAL | {"ci95": "ab"}],
    [EVAL | {"ci95": [0.5, "2"]}],
    [EVAL | {"ci95": {"lo": 0.5, "hi": 2.0}}],
    [EVAL | {"ci95": None}],
    [EVAL | {"ci95": [False, 2.0]}],
    [_without("deals")],
    [EVAL | {"deals": "64"}],
    [EVAL | {"deals": 64.0}],
    [EVAL | {"deals": -1}],
    [EVAL | {"deals": True}],
    [_without("opponent")],
    [EVAL | {"opponent": 5}],
    [EVAL | {"opponent": None}],
    [EVAL | {"opponent": ["h"]}],
    [EVAL | {"deal_set": 5}],
    [EVAL | {"checksum": None}],
    [EVAL | {"date": 20260101}],
    [EVAL | {"label": 3}],
    [EVAL | {"sd": "3"}],
]


@pytest.mark.parametrize("evaluations", MALFORMED_EVALUATIONS, ids=[str(i) for i in range(len(MALFORMED_EVALUATIONS))])
def test_malformed_evaluations_are_refused_with_a_bundle_error(tmp_path, evaluations):
    """Evaluations are shown in the load line: each must be a dict with a str opponent, a
    number mean, a [low, high] ci95 of numbers and an int deals >= 0; optional fields typed."""
    folder = make_bundle(tmp_path / "b")
    edit_manifest(folder, evaluations=evaluations)  # a valid checksum: only the content is wrong
    with pytest.raises(BundleError, match="evaluations"):  # never a TypeError, KeyError or IndexError
        load_policy(folder)
    with pytest.raises(BundleError, match="evaluations"):
        read_manifest(folder)


NEVER_WRITTEN = [e for e in MALFORMED_EVALUATIONS[:14] if e is not None]  # None: save_bundle's "no evaluations"


@pytest.mark.parametrize("evaluations", NEVER_WRITTEN, ids=[str(i) for i in range(len(NEVER_WRITTEN))])
def test_malformed_evaluations_are_never_written(tmp_path, evaluations):
    folder = make_bundle(tmp_path / "b")
    before = (folder / MANIFEST).read_bytes()
    with pytest.raises(BundleError, match="evaluations"):
        update_evaluations(folder, evaluations)
    assert (folder / MANIFEST).read_bytes() == before
    with pytest.raises(BundleError, match="evaluations"):
        make_bundle(tmp_path / "c", evaluations=evaluations)


def test_well_formed_evaluations_of_every_writer_load(tmp_path):
    """What the trainer, the distiller and eval write: extra keys, a label, no sd, an infinite
    interval (one deal), an empty list or no evaluations at all."""
    extra = EVAL | {"label": "teacher", "share_won": 0.5, "matches": {"played": 3}, "step": 100}
    one_deal = _without("sd") | {"deals": 1, "ci95": [float("-inf"), float("inf")]}
    for evaluations in ([extra, one_deal], []):
        folder = make_bundle(tmp_path / f"b{len(evaluations)}", evaluations=evaluations)
        assert load_policy(folder).manifest["evaluations"] == evaluations
    m = json.loads((folder / MANIFEST).read_text())
    del m["evaluations"]
    _write_manifest(folder, m)
    assert "evaluations" not in load_policy(folder).manifest


@pytest.mark.parametrize("name", ["champion", "expert", "strong"])
def test_the_shipped_bundles_load_with_their_test_set_figures(name, caplog):
    """The champion and the previous two (where configs/expert_guided.yaml and configs/expert.yaml
    start) verify, and loading one logs its recorded figures against heuristic on test960."""
    caplog.set_level(logging.INFO, logger="baloot.bundle")
    p = load_policy(REPO / "policies" / name)
    assert p.manifest["manifest_sha256"]
    assert any(e["opponent"] == "heuristic" and e["deal_set"] == "test960" for e in p.manifest["evaluations"])
    assert any("vs heuristic" in r.getMessage() for r in caplog.records)


# ---------------------------------------------------------------- one torch thread by default
@pytest.fixture
def torch_threads():
    """Restore torch's thread count after the test, whatever it did."""
    previous = torch.get_num_threads()
    yield previous
    torch.set_num_threads(previous)


def test_load_policy_uses_one_torch_thread_by_default(tmp_path, torch_threads):
    folder = make_bundle(tmp_path / "b")
    torch.set_num_threads(2)
    load_policy(folder)
    assert torch.get_num_threads() == 1
    torch.set_num_threads(2)
    load_policy(folder, threads=1)
    assert torch.get_num_threads() == 1


def test_load_policy_threads_none_leaves_torch_alone(tmp_path, torch_threads):
    folder = make_bundle(tmp_path / "b")
    torch.set_num_threads(2)
    load_policy(folder, threads=None)
    assert torch.get_num_threads() == 2
    load_policy(folder, threads=3)
    assert torch.get_num_threads() == 3


@pytest.mark.parametrize("threads", [0, -1, 1.0, True, "1"])
def test_load_policy_refuses_a_bad_thread_count_before_changing_anything(tmp_path, torch_threads, threads):
    folder = make_bundle(tmp_path / "b")
    torch.set_num_threads(2)
    with pytest.raises(ValueError, match="threads"):
        load_policy(folder, threads=threads)
    assert torch.get_num_threads() == 2


def test_a_refused_bundle_leaves_torch_threads_alone(tmp_path, torch_threads):
    folder = make_bundle(tmp_path / "b")
    (folder / WEIGHTS).write_bytes(b"not weights")
    torch.set_num_threads(2)
    with pytest.raises(BundleError):
        load_policy(folder)
    assert torch.get_num_threads() == 2


# ---------------------------------------------------------------- the one masked sampler
class _Fixed:
    """A generator whose draws are given (u / total in [0, 1))."""

    def __init__(self, draws):
        self.draws = np.asarray(draws, dtype=np.float64)

    def random(self, n):
        assert n == len(self.draws)
        return self.draws


def test_the_masked_sampler_never_draws_an_illegal_action():
    """At u = 0 the first legal action; just below the total the last one; zeros are skipped."""
    probs = np.zeros((3, 42))
    probs[:, [3, 7, 40]] = [0.25, 0.5, 0.25]
    assert sample_masked(probs, _Fixed([0.0, 0.5 - 1e-12, 1 - 1e-16])) == [3, 7, 40]
    assert sample_masked(probs, _Fixed([0.25, 0.75, 0.999])) == [7, 40, 40]  # boundaries go right
    unnormalised = probs * 3.0
    assert sample_masked(unnormalised, _Fixed([0.0, 0.3, 0.9])) == [3, 7, 40]


def test_every_network_player_samples_with_it():
    """The bundle agent and the opponent pool's snapshots (on seats or arrays) draw the same
    actions from the same probabilities and generator state."""
    import train.opponents

    assert train.opponents.sample_masked is sample_masked
    rng = np.random.default_rng(4)
    probs = rng.random((500, 42)) * (rng.random((500, 42)) < 0.3)
    probs[:, 0] += 1e-3  # every row has a legal action
    picks = sample_masked(probs, np.random.default_rng(9))
    assert all(probs[i, a] > 0 for i, a in enumerate(picks))
    u = np.random.default_rng(9).random(500) * probs.sum(axis=1)
    cum = np.cumsum(probs, axis=1)
    assert picks == [int(np.argmax(row > x)) for row, x in zip(cum, u, strict=True)]  # inverse CDF


@pytest.mark.parametrize(
    "net",
    [
        {"trunk": [], "head_hidden": 8, "value_hidden": [8], "privileged_critic": False, "obs_size": 697},
        {"trunk": [-5], "head_hidden": 8, "value_hidden": [8], "privileged_critic": False, "obs_size": 697},
        {"trunk": ["a"], "head_hidden": 8, "value_hidden": [8], "privileged_critic": False, "obs_size": 697},
        {"trunk": [16], "head_hidden": 10**6, "value_hidden": [8], "privileged_critic": False, "obs_size": 697},
        {"trunk": [16], "head_hidden": 8, "value_hidden": 8, "privileged_critic": False, "obs_size": 697},
        {"trunk": [16], "head_hidden": 8, "value_hidden": [8], "privileged_critic": "yes", "obs_size": 697},
        {"trunk": [16], "head_hidden": 8.5, "value_hidden": [8], "privileged_critic": False, "obs_size": 697},
    ],
    ids=["empty-trunk", "negative", "text", "huge", "not-a-list", "not-a-bool", "fraction"],
)
def test_a_resealed_impossible_architecture_is_a_bundle_error(tmp_path, net):
    """A forger who renews the checksums can write any net spec: each is a BundleError, never an
    IndexError, RuntimeError, TypeError or a network that fills the memory."""
    folder = make_bundle(tmp_path / "b")
    edit_manifest(folder, net=net)
    with pytest.raises(BundleError, match="malformed architecture"):
        load_policy(folder)


@pytest.mark.parametrize("value", [float("nan"), float("inf")], ids=["nan", "inf"])
def test_weights_that_are_not_finite_are_refused(tmp_path, value):
    torch.manual_seed(0)
    net = BalootNet(SMALL)
    with torch.no_grad():
        net.card_head[2].bias[3] = value
    folder = save_bundle(tmp_path / "b", net, name="nan")
    with pytest.raises(BundleError, match=r"not finite numbers \(card_head.2.bias\)"):
        load_policy(folder)


def test_a_name_with_control_characters_cannot_forge_a_log_line(tmp_path, caplog):
    folder = make_bundle(tmp_path / "b")
    edit_manifest(folder, name="ok\nINFO forged line\x1b[2K")
    with caplog.at_level(logging.INFO):
        load_policy(folder)
    lines = [r.getMessage() for r in caplog.records if "loaded policy" in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0] and "\x1b" not in lines[0]
    assert "ok\\nINFO forged line\\x1b[2K" in lines[0]


def test_load_policy_finds_the_shipped_champion_from_any_folder(tmp_path, monkeypatch):
    """Issue 47, goal 4: ``agents.load_policy("policies/champion")`` from a folder without a
    ``policies`` folder loads the bundle shipped in the package, as agent specs do."""
    import agents

    monkeypatch.chdir(tmp_path)
    policy = agents.load_policy("policies/champion")
    root = Path(__file__).resolve().parents[2]
    checkout = agents.load_policy(str(root / "policies" / "champion"))
    assert policy.manifest["weights_sha256"] == checkout.manifest["weights_sha256"]


_LOAD = (
    "import sys, logging\n"
    "import agents\n"
    "if sys.argv[1] == 'prompt':\n"
    "    sys.ps1 = '>>> '  # what a Python prompt sets\n"
    "if sys.argv[1] == 'logging':\n"
    "    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='LOG %(message)s')\n"
    "agents.load_policy('policies/champion')\n"
)


@pytest.mark.parametrize("mode", ["prompt", "script", "logging"])
def test_the_load_line_reaches_the_person_who_loads(tmp_path, mode):
    """At a prompt (or in a notebook), where nobody configured logging: one line on stderr. A
    script stays quiet, as a library should (our commands' bad input stays one line). A program
    that configured logging gets it as a log record."""
    script = tmp_path / "load.py"
    script.write_text(_LOAD)
    done = subprocess.run(
        [sys.executable, str(script), mode], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stderr.count("loaded policy ") == (mode == "prompt")
    assert done.stdout.count("LOG loaded policy ") == (mode == "logging")
    if mode == "prompt":
        assert "from policies/champion: weights sha256 " in done.stderr

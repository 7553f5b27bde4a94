"""The JSON schemas (issue 47, goal 3) and the env's ``observation="json"`` form.

Every view the PettingZoo env gives in its JSON form (hand and match episodes, rule variants
with and without projects) and every saved hand, at every step of random games, validates
against the schema; views and hands broken in one place each do not. The committed schema files
are what ``python -m baloot_env.schema`` writes now.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from pettingzoo.test import api_test

from baloot_env import HandState, env, random_deal
from baloot_env.actions import action_name
from baloot_env.aec import JSON_MAX_LENGTH
from baloot_env.rules import RuleConfig
from baloot_env.schema import SCHEMAS, hand_schema, schema_text, view_schema
from baloot_env.view import PlayerView

ROOT = Path(__file__).resolve().parents[2]
VIEW = Draft202012Validator(view_schema())
HAND = Draft202012Validator(hand_schema())


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_the_committed_schemas_are_the_generated_ones(name):
    built = SCHEMAS[name]()
    Draft202012Validator.check_schema(built)
    committed = ROOT / "docs" / "schemas" / f"{name}.schema.json"
    assert committed.read_text(encoding="utf-8") == schema_text(built), (
        f"{committed} is stale: run python -m baloot_env.schema --out docs/schemas"
    )


def _play(rules: RuleConfig, episode: str, seed: int, hands: int):
    """The JSON views of every agent at every step, and the acting seat's legal names and mask."""
    game = env(observation="json", episode=episode, rules=rules)
    rng = random.Random(seed)
    for h in range(hands):
        game.reset(seed=seed * 1000 + h)
        for _ in game.agent_iter():
            obs, _, done, _, _ = game.last()
            if done:
                game.step(None)
                continue
            for other in game.agents:
                yield game.observe(other)
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(rng.choice(legal)))


@pytest.mark.parametrize(
    ("rules", "episode"),
    [(RuleConfig(), "hand"), (RuleConfig(projects=False, sun_double=True), "hand"), (RuleConfig(), "match")],
)
def test_every_view_of_the_env_validates(rules, episode):
    longest = checked = 0
    for obs in _play(rules, episode, seed=5, hands=25 if episode == "hand" else 3):
        text = obs["json"]
        longest = max(longest, len(text))
        data = json.loads(text)
        VIEW.validate(data)
        mask = [a for a in range(len(obs["action_mask"])) if obs["action_mask"][a]]
        assert data["legal_actions"] == [action_name(a) for a in mask]  # the mask and the names agree
        checked += 1
    assert checked > 1000
    assert longest < JSON_MAX_LENGTH // 4  # the Text space's bound holds with room


def test_the_json_form_passes_pettingzoo_api_test_and_the_vector_form_is_unchanged():
    api_test(env(observation="json"), num_cycles=100)
    a, b = env(), env(observation="json")
    a.reset(seed=9)
    b.reset(seed=9)
    oa, ob = a.observe(a.agent_selection), b.observe(b.agent_selection)
    assert set(oa) == {"observation", "action_mask"} and set(ob) == {"observation", "action_mask", "json"}
    assert np.array_equal(oa["observation"], ob["observation"])
    with pytest.raises(ValueError, match="observation must be one of"):
        env(observation="text")


def _saved_hands(n: int):
    rng = random.Random(3)
    for i in range(n):
        state = HandState(random_deal(rng), RuleConfig(sun_double=i % 2 == 1), match_score=(i, 2 * i))
        while True:
            yield state.to_json()
            if state.result is not None:
                break
            state.apply(rng.choice(sorted(state.legal_actions())))


def test_every_saved_hand_validates():
    count = 0
    for data in _saved_hands(40):
        HAND.validate(data)
        count += 1
    assert count > 40 * 20
    thrown = HandState(random_deal(random.Random(9)))
    while thrown.result is None:
        thrown.apply(32)  # everyone passes both rounds: thrown in (R3.5), a result without a caller
    assert thrown.result.contract is None
    HAND.validate(thrown.to_json())


def _views(n: int):
    rng = random.Random(4)
    for _ in range(n):
        state = HandState(random_deal(rng))
        while state.result is None:
            yield PlayerView.from_state(state, rng.randrange(4)).to_struct()
            state.apply(rng.choice(sorted(state.legal_actions())))


# One break each; a schema that let any of them through would pass views no reader can trust.
VIEW_BREAKS = [
    ("a card that is not a name", lambda d: d["hand"].append("1S")),
    ("a card twice", lambda d: d["played_by"][0].extend(["7S", "7S"])),
    ("seat 4", lambda d: d.update(seat=4)),
    ("a missing field", lambda d: d.pop("voids")),
    ("an unknown field", lambda d: d.update(secret=["AS"])),
    ("another format", lambda d: d.update(format="baloot-view-0")),
    ("a call that is a card", lambda d: d["bids"].append({"round": 1, "seat": 0, "call": "AS"})),
    ("a rule switch unknown", lambda d: d["rules"].update(trumps=3)),
    ("a rule value out of its choices", lambda d: d["rules"].update(hands=7)),
    ("five cards in a trick", lambda d: d["trick"].extend([{"seat": 0, "card": "7S"}] * 5)),
    ("a suit that is not one", lambda d: d["voids"][1].append("X")),
    ("a match mode unknown", lambda d: d["match"].update(mode="league")),
]

HAND_BREAKS = [
    ("action 42", lambda d: d["history"].append(42)),
    ("a card id 32 in the deal", lambda d: d["deal"]["hands"][0].__setitem__(0, 32)),
    ("six first cards", lambda d: d["deal"]["hands"][1].append(0)),
    ("a negative match score", lambda d: d.update(match_score=[-1, 0])),
    ("a snapshot field missing", lambda d: d["snapshot"].pop("voids")),
    ("an unknown phase", lambda d: d["snapshot"].update(phase="dealing")),
]


@pytest.mark.parametrize(("what", "brk"), VIEW_BREAKS, ids=[w for w, _ in VIEW_BREAKS])
def test_a_broken_view_fails(what, brk):
    views = list(_views(3))
    for data in views[::7]:
        VIEW.validate(data)
        broken = copy.deepcopy(data)
        brk(broken)
        assert not VIEW.is_valid(broken), what


@pytest.mark.parametrize(("what", "brk"), HAND_BREAKS, ids=[w for w, _ in HAND_BREAKS])
def test_a_broken_hand_fails(what, brk):
    for data in list(_saved_hands(2))[::9]:
        broken = copy.deepcopy(data)
        brk(broken)
        assert not HAND.is_valid(broken), what

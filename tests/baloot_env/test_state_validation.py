"""Saved and constructed states are checked field by field.

``HandState.from_json`` takes untrusted data (a file, a message): every malformed field must be
refused with a ``StateError`` naming the field, never with a ``TypeError``, ``KeyError`` or
``IndexError`` from deep inside, and never accepted. The match score is checked against R8:
non-negative ints that a match could have before a hand.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_env.deal import random_deal
from baloot_env.errors import DealError, StateError
from baloot_env.hand import PLAY, HandState
from baloot_env.match import MatchState
from baloot_env.rules import RuleConfig

SCORE = (40, 70)
HUGE = 10**5000  # str() of it raises ValueError (Python's 4,300-digit limit)


def mid_hand_state() -> HandState:
    """A Hokum hand in its third trick, part of a match at 40-70 (every field is non-trivial)."""
    for seed in range(1000):
        rng = random.Random(seed)
        s = HandState(random_deal(rng), RuleConfig(), SCORE)
        while not s.done and not (s.phase == PLAY and len(s.tricks) == 2 and len(s.trick_cards) == 1):
            s.apply(rng.choice(s.legal_actions()))
        if not s.done and s.contract == "hokum" and any(s.projects):
            return s
    raise AssertionError("no seed gave a Hokum hand with projects")


STATE = mid_hand_state()
SAVED = json.loads(json.dumps(STATE.to_json()))
MISSING = object()  # a mutation value: delete the key


def mutated(path: tuple, value) -> dict:
    data = copy.deepcopy(SAVED)
    *parents, last = path
    node = data
    for key in parents:
        node = node[key]
    if value is MISSING:
        del node[last]
    else:
        node[last] = value
    return data


def good_deal() -> dict:
    return copy.deepcopy(SAVED["deal"])


def deal_with(**changes) -> dict:
    return good_deal() | changes


def dup_card_deal() -> dict:
    d = good_deal()
    d["stock"][0] = d["turned"]
    return d


CASES = [
    # (path, malformed value, word the message must contain)
    *[(("format",), v, "format") for v in (MISSING, None, "baloot-hand-1", 1, [SAVED["format"]])],
    *[
        (("rules",), v, "rules")
        for v in (
            MISSING,
            None,
            [],
            "default",
            5,
            {"hands": 5.5},
            {"hands": "5"},
            {"projects": 1},
            {"sun_doubel": True},
            {"match": ["target"]},
        )
    ],
    *[
        (("deal",), v, "deal")
        for v in (
            MISSING,
            None,
            [],
            "deal",
            7,
            {},
            deal_with(dealer=5),
            deal_with(dealer="0"),
            deal_with(dealer=1.0),
            deal_with(hands=[]),
            deal_with(turned=None),
            deal_with(stock=good_deal()["stock"][:10]),
            deal_with(extra=1),
            dup_card_deal(),
        )
    ],
    *[
        (("match_score",), v, "match_score")
        for v in (
            MISSING,
            None,
            5,
            "ab",
            "40",
            [],
            [40],
            [40, 70, 0],
            (40,),
            [40.0, 70.0],
            [40.5, 70],
            [True, False],
            ["40", 70],
            [None, 70],
            {"0": 40, "1": 70},
            [-1, 70],
            [-100, 9999],
            [40, 9999],
            [70, 40],
            [0, 0],
        )
    ],
    *[
        (("history",), v, "history")
        for v in (
            MISSING,
            None,
            5,
            "abc",
            {},
            {"0": 33},
            [1.5],
            [True],
            ["pass"],
            [None],
            SAVED["history"][:-1],
            SAVED["history"] + [99],
            [float(a) for a in SAVED["history"]],
            SAVED["history"][:-1] + [-1],
            [SAVED["history"]],
        )
    ],
    *[(("snapshot",), v, "snapshot") for v in (MISSING, None, [], "x", 5, {}, True)],
    (("snapshot", "level"), float(STATE.level), "level"),
    (("snapshot", "level"), True if STATE.level == 1 else STATE.level + 1, "level"),
    (("snapshot", "trump"), (STATE.trump + 1) % 4, "trump"),
    (("snapshot", "trump"), float(STATE.trump), "trump"),
    (("snapshot", "hands"), "x", "hands"),
    (("snapshot", "hands"), STATE.hands[:3], "hands"),
    (("snapshot", "raw"), [float(x) for x in STATE.raw], "raw"),
    (("snapshot", "baloot_announced"), int(STATE.baloot_announced), "baloot_announced"),
    (("snapshot", "match_score"), [-100, 9999], "match_score"),
    (("snapshot", "match_score"), [40.0, 70.0], "match_score"),
    (("snapshot", "match_score"), MISSING, "match_score"),
    (("snapshot", "history"), MISSING, "history"),
    (("snapshot", "invented"), 1, "invented"),
    (("unknown_field",), 1, "unknown_field"),
    # integers too long for Python to print (over 4,300 digits): still a StateError naming the field
    *[
        ((f,), v, f)
        for f, v in (("format", HUGE), ("match_score", [HUGE, 0]), ("history", [HUGE]), ("rules", {"hands": HUGE}))
    ],
    (("snapshot", "level"), HUGE, "level"),
]


def test_the_unmodified_saved_state_is_restored():
    """The control for the table below: the real snapshot restores to an equal state."""
    assert HandState.from_json(copy.deepcopy(SAVED)) == STATE
    assert STATE.match_score == SCORE and STATE.phase == PLAY and len(STATE.tricks) == 2


@pytest.mark.parametrize(("path", "value", "word"), CASES, ids=[f"{'.'.join(c[0])}-{i}" for i, c in enumerate(CASES)])
def test_every_malformed_field_is_refused_with_a_state_error_naming_it(path, value, word):
    with pytest.raises(StateError, match=word):  # not TypeError, KeyError, IndexError, AttributeError...
        HandState.from_json(mutated(path, value))


@pytest.mark.parametrize("data", [None, [], "state", 5, b"{}", [SAVED]])
def test_a_saved_state_that_is_not_a_dict_is_refused(data):
    with pytest.raises(StateError, match="saved hand state"):
        HandState.from_json(data)


def restorable(score, rules: RuleConfig) -> bool:
    """Whether a fresh hand saved with this match score is restored (StateError: it is not)."""
    data = HandState(random_deal(random.Random(0)), rules, score).to_json()
    try:
        HandState.from_json(json.loads(json.dumps(data)))
    except StateError as e:
        assert "match_score" in str(e)
        return False
    return True


def test_match_score_bounds_follow_r8():
    """R8.1: in target mode a hand is played only while no team has reached 152 with the scores
    differing (V6: exceeded 152); level scores go on (R8.1) up to the cap of 99 deals (R8.4), so
    98 hands before the last deal. R8.2: in hands mode unequal scores mean fewer than ``hands``
    hands were scored. One team scores at most 288 in a hand: a doubled (V1) Sun kaboot, 44,
    plus 100 of projects (four A 40 and three more fours 20 each, R6.1), times 2 (R7.7)."""
    target, above, hands5 = RuleConfig(), RuleConfig(win_above=True), RuleConfig(match="hands", hands=5)
    assert restorable((0, 0), target) and restorable((151, 151 - 10), target)
    assert not restorable((152, 151), target) and not restorable((10, 152), target)
    assert restorable((152, 152), target) and restorable((300, 300), target)
    assert restorable((152, 100), above) and not restorable((153, 100), above)
    assert restorable((98 * 288, 98 * 288), target) and not restorable((98 * 288 + 1, 98 * 288 + 1), target)
    assert restorable((4 * 288, 0), hands5) and not restorable((4 * 288 + 1, 0), hands5)
    assert restorable((98 * 288, 98 * 288), hands5) and not restorable((98 * 288 + 2, 98 * 288 + 2), hands5)
    assert restorable((8 * 288, 3), RuleConfig(match="hands", hands=9))


@pytest.mark.parametrize("bad", [[], (1,), (1, 2, 3), ("1", 2), (1.5, 2), (True, 0), None, 5, "ab"])
def test_hand_state_refuses_a_malformed_match_score(bad):
    """Today ``int()`` truncated 1.5 and took True for 1; a match score is two ints."""
    with pytest.raises(TypeError, match="match_score"):
        HandState(random_deal(random.Random(0)), None, bad)
    with pytest.raises(ValueError, match="match_score"):
        HandState(random_deal(random.Random(0)), None, (-1, 0))


def test_a_dict_deal_is_refused_with_a_clear_error():
    """The engine takes validated Deals (R2.4); a dict must go through parse_deal first."""
    deal = random_deal(random.Random(3))
    for bad in (deal.to_dict(), None, [1, 2]):
        with pytest.raises(TypeError, match="parse_deal"):
            HandState(bad)
        with pytest.raises(TypeError, match="parse_deal"):
            HandState.replay(bad, [])
        with pytest.raises(TypeError, match="parse_deal"):
            MatchState().start_hand(bad)
    with pytest.raises(TypeError, match="rules"):
        HandState(deal, {"projects": False})
    with pytest.raises(TypeError, match="history"):
        HandState.replay(deal, 32)
    assert issubclass(DealError, ValueError)


@pytest.mark.parametrize("bad", [{}, {"match": "hands"}, "target", 5])
def test_match_state_refuses_rules_that_are_not_a_rule_config(bad):
    with pytest.raises(TypeError, match="rules"):
        MatchState(bad)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)
FIELD_PATHS = [(k,) for k in SAVED] + [(k,) for k in SAVED["deal"]] + [("snapshot", k) for k in SAVED["snapshot"]]


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(FIELD_PATHS), value=JSON_VALUES)
def test_any_json_value_in_any_field_gives_a_state_error_or_the_same_state(path, value):
    """Fuzzing the table above: whatever JSON lands in a field, from_json raises StateError or,
    if the value happens to be valid (``{}`` for the default rules), restores the very state
    that was saved."""
    data = copy.deepcopy(SAVED)
    node = data["deal"] if len(path) == 1 and path[0] in SAVED["deal"] and path[0] not in SAVED else data
    if len(path) == 2:
        node = data[path[0]]
    node[path[-1]] = value
    try:
        restored = HandState.from_json(data)
    except StateError:
        return
    assert restored == STATE and restored.to_json() == SAVED


def test_an_action_too_long_to_print_is_an_illegal_action_error():
    """``env.step`` and ``HandState.apply``: the one exception type, with the value named by its size."""
    from baloot_env import env
    from baloot_env.errors import IllegalActionError

    e = env()
    e.reset(seed=0)
    with pytest.raises(IllegalActionError, match="an integer of 16,610 bits"):
        e.step(HUGE)
    state = HandState(random_deal(random.Random(0)))
    with pytest.raises(IllegalActionError, match="an integer of 16,610 bits"):
        state.apply(-HUGE)


@pytest.mark.parametrize("field", ["history", "match_score"])
def test_a_field_nested_past_pythons_recursion_is_one_state_error(field):
    """A caller's list nested 2,000 deep (no JSON reader in between to cap it) is named by its
    type in the message, never a RecursionError from printing it (issue 46's probe)."""
    nested: list = []
    for _ in range(2_000):
        nested = [nested]
    data = copy.deepcopy(SAVED)
    data[field] = nested
    with pytest.raises(StateError, match=field) as caught:
        HandState.from_json(data)
    assert "\n" not in str(caught.value)

"""The layers import alone: the rules engine without gymnasium/pettingzoo, a policy without SB3.

Each check runs in a fresh interpreter whose import system refuses the named packages, as on a
machine where they are not installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_MODULES = ("cards", "deal", "rules", "hand", "projects", "scoring", "match", "results", "actions", "errors")

BLOCKER = """
import importlib.abc
import sys

BLOCKED = {blocked!r}


class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None


sys.meta_path.insert(0, Blocker())
"""


def run_without(blocked: tuple[str, ...], code: str) -> None:
    """Run ``code`` in a fresh interpreter where importing any of ``blocked`` fails."""
    script = BLOCKER.format(blocked=set(blocked)) + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, f"without {blocked}:\n{done.stdout}\n{done.stderr}"
    assert "OK" in done.stdout, done.stdout


PLAY_A_HAND = """
import importlib
import random

for name in {modules!r}:
    importlib.import_module("baloot_env." + name)
import baloot_env
from baloot_env import HandState, RuleConfig, random_deal

rng = random.Random(0)
for _ in range(20):
    state = HandState(random_deal(rng), RuleConfig())
    while not state.done:
        state.apply(rng.choice(state.legal_actions()))
    assert state.result is not None
    assert state.result.thrown or sum(state.result.raw) in (130, 162)  # R1.4
assert baloot_env.ENV_NAME == "baloot_v0"
try:
    baloot_env.env
except ImportError as e:
    assert e.name.partition(".")[0] in ("gymnasium", "pettingzoo"), e
else:
    raise AssertionError("the environment imported without gymnasium/pettingzoo?")
print("OK")
"""


def test_engine_imports_and_plays_without_gymnasium_and_pettingzoo():
    run_without(("gymnasium", "pettingzoo"), PLAY_A_HAND.format(modules=ENGINE_MODULES))


def test_engine_needs_only_the_standard_library():
    """README: the rules engine uses only the standard library (numpy blocked too)."""
    run_without(("gymnasium", "pettingzoo", "numpy", "torch"), PLAY_A_HAND.format(modules=ENGINE_MODULES))


def test_load_policy_needs_only_torch_and_numpy():
    """README: loading a bundle needs torch and numpy only; the policy then acts."""
    code = """
    import random
    import sys

    import agents
    from agents import PlayerView
    from baloot_env import HandState, random_deal
    from baloot_env.observation import action_mask, encode

    policy = agents.load_policy("policies/champion")
    state = HandState(random_deal(random.Random(1)))
    seat = state.to_act
    a = policy.act(encode(state, seat), action_mask(state, seat))
    assert a in state.legal_actions(), a
    b = policy.act(PlayerView.from_state(state, seat))
    assert b in state.legal_actions(), b
    leaked = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
    assert not leaked, leaked
    print("OK")
    """
    run_without(("gymnasium", "pettingzoo", "stable_baselines3", "sb3_contrib"), code)


def test_lazy_names_still_import_from_the_package():
    import baloot_env
    from baloot_env import ENV_NAME, OBS_SIZE, OBS_VERSION, REWARD_SCALE, RuleConfig, env, raw_env
    from baloot_env import env as env_module_factory

    assert env is env_module_factory and callable(raw_env) and isinstance(RuleConfig(), RuleConfig)
    assert ENV_NAME == "baloot_v0" and REWARD_SCALE == 44.0 and OBS_SIZE > 0 and OBS_VERSION >= 1
    assert set(baloot_env.__all__) <= set(dir(baloot_env))
    try:
        baloot_env.no_such_name  # noqa: B018
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("unknown attribute did not raise")


def test_env_is_the_factory_even_after_the_submodule_was_imported():
    """``baloot_env.env`` is the factory, also after its module (``baloot_env.aec``) was imported:
    no submodule shares its name, so no import can rebind it."""
    code = """
    from baloot_env.aec import raw_env  # binds the submodule on the package first
    from baloot_env import env

    assert callable(env) and env.__name__ == "env", env
    env().reset(seed=0)
    print("OK")
    """
    run_without((), code)


# ---------------------------------------------------------------------- layers point one way
# What each package may not import (STYLE.md: baloot_io, baloot_env <- agents <- eval <- train;
# the table sits above evaluation; baloot_cli, every command's kit, sits on the engine).
ABOVE = {
    "baloot_io": {"baloot_env", "baloot_cli", "agents", "eval", "train", "table"},
    "baloot_env": {"baloot_cli", "agents", "eval", "train", "table"},
    "baloot_cli": {"agents", "eval", "train", "table"},
    "agents": {"eval", "train", "table"},
    "eval": {"train", "table"},
    "train": {"table"},
}
# Imports that still reach up, each with its reason (none now).
REACHING_UP: set[tuple[str, str]] = set()


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every absolute import in ``path``, top level and inside functions: (line, module)."""
    import ast

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


def test_no_package_imports_a_layer_above_it():
    wrong = []
    for package, banned in ABOVE.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for line, module in _imports(path):
                if module.split(".")[0] in banned and (rel, module) not in REACHING_UP:
                    wrong.append(f"{rel}:{line} imports {module}")
    assert not wrong, "imports that reach a layer above:\n" + "\n".join(wrong)
    for rel, module in REACHING_UP:  # an exception that is gone is dropped from the list
        assert any(m == module for _, m in _imports(ROOT / rel)), (rel, module)


def test_the_training_floors_point_down():
    """``train/``'s floors (``train.POSITIONS``, ``FITTING``, ``STAGES``; docs/ARCHITECTURE.md):
    positions and fitting import no stage and nothing of the frame but ``train.config``; fitting
    imports no positions either."""
    import train

    floors = {name: "positions" for name in train.POSITIONS} | {name: "fitting" for name in train.FITTING}
    floors |= {name: "stages" for name in train.STAGES}
    everything = {p.stem for p in (ROOT / "train").glob("*.py")} | {"rllib"}
    frame = everything - set(floors) - {"__init__", "config"}
    assert {"skeleton", "trainer", "run", "evaluation"} <= frame, frame  # every module has its place
    banned = {
        "positions": set(train.STAGES) | frame | set(train.FITTING),
        "fitting": set(train.STAGES) | frame | set(train.POSITIONS) | {"config"},
    }
    wrong = []
    for name, floor in floors.items():
        if floor not in banned:
            continue
        for line, module in _imports(ROOT / "train" / f"{name}.py"):
            parts = module.split(".")
            if parts[0] == "train" and len(parts) > 1 and parts[1] in banned[floor]:
                wrong.append(f"train/{name}.py:{line} ({floor}) imports {module}")
    assert not wrong, "a floor of train/ reaching up or across:\n" + "\n".join(wrong)


def test_the_environment_makes_named_agents_through_the_declared_factory():
    """``opponents="heuristic"`` works without baloot_env naming agents: the factory is the
    entry point the project declares."""
    from agents.registry import make_agent
    from baloot_env.players import agent_factory

    assert agent_factory() is make_agent

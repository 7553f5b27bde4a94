"""Any agent in the evaluator (issue 47, goal 1): ``module:factory`` specs and agent objects play
exactly as the built-in agent they wrap, in this process and in workers; a zip is told what to do."""

from __future__ import annotations

import pytest

from agents import HeuristicAgent
from agents.registry import AgentSpecError, make_agent
from eval.deals import load_named
from eval.runner import run_duplicate

MODULE = """
from agents import HeuristicAgent


def make(seed):
    agent = HeuristicAgent(seed)
    agent.name = "mine"
    return agent


def not_an_agent(seed):
    return 42
"""


@pytest.fixture
def my_module(tmp_path, monkeypatch):
    (tmp_path / "my_baloot_agents.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # spawned workers find it from the working folder too
    return "my_baloot_agents"


def test_a_factory_spec_builds_the_agent_it_returns(my_module):
    agent = make_agent(f"{my_module}:make", seed=3)
    assert isinstance(agent, HeuristicAgent) and agent.name == "mine"
    with pytest.raises(AgentSpecError, match="not an agents.Agent"):
        make_agent(f"{my_module}:not_an_agent")
    with pytest.raises(AgentSpecError, match="ModuleNotFoundError"):
        make_agent("no_such_module_here:make")
    with pytest.raises(AgentSpecError, match="AttributeError"):
        make_agent(f"{my_module}:missing")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_factory_and_an_object_play_as_the_agent_they_wrap(my_module, workers):
    deals = load_named("dev960").head(8)
    plain = run_duplicate("heuristic", "random", deals, seed=4, workers=workers, matches=False)
    by_factory = run_duplicate(f"{my_module}:make", "random", deals, seed=4, workers=workers, matches=False)
    by_object = run_duplicate(HeuristicAgent(0), "random", deals, seed=4, workers=workers, matches=False)
    assert by_factory.records == plain.records and by_object.records == plain.records


def test_a_zip_is_told_how_to_play(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    with pytest.raises(AgentSpecError, match=f"sb3:{model}"):
        make_agent(str(model))


def test_the_evaluator_takes_a_factory_spec(my_module, capsys):
    from eval.__main__ import main

    assert main(["--a", f"{my_module}:make", "--b", "random", "--deals", "4", "--no-matches", "--quiet"]) == 0
    assert f"A = {my_module}:make" in capsys.readouterr().out

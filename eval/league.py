"""League table: round-robin duplicate among several agents, with Elo ratings: a strength ladder.

Each pair plays the same deals in duplicate (``runner.run_duplicate``, no matches). The matrix
holds the mean of d (row agent as A) and the Elo ratings are fitted (``stats.elo_ratings``) to
the deals won, a tied deal counting half.

A ladder in a report also needs what each rung costs, so the league measures it:

- **Time per decision** (``time_decisions``): every agent decides on the same ``time_positions``
  views (``decision_views``: the first deals of the set played by ``heuristic``, every seat's
  turns with more than one legal action, bidding and card play as they come), one warm-up call
  first so that loading and JIT compilation are not counted. Each agent gets fresh copies of
  the views: a view caches its observation vector, and encoding it is part of a network's cost.
- **Size** (``agent_size``): for a policy bundle, or an agent wrapping one (``netsearch``,
  ``split``), the number of network parameters and the bytes of the bundle's weights file;
  None for agents without a network.

A long ladder can be killed and resumed: with ``pairs_dir`` every finished pair is written
there at once (atomically, one JSON file per pair, ``PAIR_FORMAT``), and a rerun reuses a saved
pair whose recorded agents (specs, spec contents and bundle weights), deal set checksums, deal
count and seed match, playing only the others. Swapping A and B only flips the sign of every d
(hand seeds belong to seat positions, ``duplicate.hand_seed``), so a pair saved the other way
round is reused too. The report does not show which pairs were reused: it is the same either
way. A corrupt pair file is refused (``LeagueError``) before any work starts.

``eval.league_plot.plot_league`` draws the ladder: the matrix of mean d as a heatmap and the ratings as bars.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from agents.base import Agent
from agents.registry import AGENTS, make_agent, policy_bundles, resolve_spec
from baloot_env.deal import Deal
from baloot_env.driver import DealSource, Table
from baloot_env.loop import play
from baloot_env.rules import RuleConfig
from baloot_env.view import PlayerView
from baloot_io.atomic import write_json_atomic
from eval.deals import DealSet
from eval.duplicate import hand_seed
from eval.runner import DEFAULT_TORCH_THREADS, _set_torch_threads, _torch_threads, check_rules, run_duplicate
from eval.stats import ci95, elo_ratings, mean_sd

DEFAULT_TIME_POSITIONS = 200  # decisions timed per agent: a steady median, little time beside the pairs
TIMING_PLAYER = "heuristic"  # plays the deals whose decision points are timed: cheap and fixed
PAIR_FORMAT = "baloot-league-pair-1"
_PAIR_KEYS = ("agents", "identity", "checksum", "deals_checksum", "deals", "seed")  # what a pair file holds
_SAME_KEYS = (*_PAIR_KEYS, "rules")  # what must match to reuse it (a file without rules is replayed)


class LeagueError(ValueError):
    """A league that cannot run as asked (too few agents, a corrupt saved pair)."""


# ---------------------------------------------------------------------- names
# Folder names a run gives every bundle (``bundles/final``, ``train calls``' ``bundle``): the
# folder above says more.
_GENERIC_BUNDLE_NAMES = ("bundle", "final", "current")


def agent_label(spec: str) -> str:
    """A short readable name: the agent's name, a spec file's basename without ``.json``, a
    bundle's folder name (or, for a generic one like ``bundle`` or ``final``, its parent's)."""
    if spec in AGENTS:
        return spec
    path = Path(spec.rstrip("/\\"))
    if path.name in _GENERIC_BUNDLE_NAMES and path.parent.name not in ("", "bundles"):
        return path.parent.name
    if path.name in _GENERIC_BUNDLE_NAMES and path.parent.name == "bundles" and path.parent.parent.name:
        return path.parent.parent.name
    name = path.name or spec
    return name[: -len(".json")] if name.endswith(".json") and len(name) > len(".json") else name


def agent_labels(specs: list[str]) -> list[str]:
    """``agent_label`` of each spec; labels that collide are the specs' paths instead."""
    base = [agent_label(s) for s in specs]
    return [
        spec.rstrip("/\\") if base.count(base[i]) > 1 and spec not in AGENTS else base[i]
        for i, spec in enumerate(specs)
    ]


# ---------------------------------------------------------------------- time and size
def decision_views(
    deal_set: DealSet, n: int, seed: int = 0, player: str = TIMING_PLAYER, rules: RuleConfig | None = None
) -> list[PlayerView]:
    """Up to ``n`` views at which the seat to act has a choice, from ``player`` playing the deals
    of ``deal_set`` in order (one table per deal, R2.4) under ``rules`` (default RULES.md),
    reproducibly: the same deals, seed, player and rules give the same views. Fewer than ``n``
    only when the whole set has fewer."""
    views: list[PlayerView] = []
    agent = make_agent(player, seed)
    for index, deal in enumerate(deal_set.deals):
        if len(views) >= n:
            break
        views += _hand_views(index, deal, agent, seed, n - len(views), rules)
    return views


def _hand_views(
    index: int, deal: Deal, agent: Agent, seed: int, limit: int, rules: RuleConfig | None
) -> list[PlayerView]:
    table = Table(rules, "hand", DealSource(deals=[deal]))
    table.reset()
    out: list[PlayerView] = []
    seeds = (hand_seed(seed, "timing", index, 0), hand_seed(seed, "timing", index, 1))

    def choose(view: PlayerView) -> int:
        agent.reset(seeds[view.seat & 1])  # the seed of the seat's team, as in duplicate.play_hand
        return agent.act(view)

    for turn in play(table, choose, until=lambda _: len(out) >= limit):
        if turn.view.legal_mask & (turn.view.legal_mask - 1):  # more than one legal action
            out.append(turn.view)
    return out


def time_decisions(
    spec: str, views: list[PlayerView], seed: int = 0, torch_threads: int | None = None
) -> dict[str, Any] | None:
    """Wall seconds ``spec``'s agent takes per decision on ``views``: ``median_s``, ``mean_s``,
    ``decisions``; None without views. One untimed warm-up call first; torch runs on
    ``torch_threads`` threads (default ``DEFAULT_TORCH_THREADS``, as in evaluation)."""
    if not views:
        return None
    agent = make_agent(spec, seed)
    fresh = [dataclasses.replace(v, _cache={}) for v in [views[0], *views]]  # no observation cached yet
    previous = _torch_threads()
    _set_torch_threads(DEFAULT_TORCH_THREADS if torch_threads is None else torch_threads)
    seconds = []
    try:
        agent.act(fresh[0])
        for view in fresh[1:]:
            t0 = time.perf_counter()
            agent.act(view)
            seconds.append(time.perf_counter() - t0)
    finally:
        if previous is not None:
            _set_torch_threads(previous)
    return {"median_s": statistics.median(seconds), "mean_s": statistics.fmean(seconds), "decisions": len(seconds)}


def _policies(agent: Agent) -> list[Any]:
    """The ``PolicyAgent``s in ``agent``: itself, or those it holds (netsearch's ``policy``,
    split's ``bidding`` and ``play``), one per distinct set of weights."""
    policy_module = sys.modules.get("agents.neural.policy")  # not loaded: no network anywhere
    if policy_module is None:
        return []
    found: dict[Any, Any] = {}
    stack, seen = [agent], set()
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, policy_module.PolicyAgent):
            found.setdefault(obj.manifest.get("weights_sha256") or id(obj), obj)
        else:
            stack += [v for v in getattr(obj, "__dict__", {}).values() if isinstance(v, Agent)]
    return list(found.values())


def _bundles(spec: str) -> dict[str, Path]:
    """The policy bundles ``spec``'s agent plays with (``registry.policy_bundles``), by weights SHA-256."""
    from agents.neural.bundle import read_manifest  # torch: only a league with a network gets here

    return {read_manifest(p)["weights_sha256"]: Path(p) for p in policy_bundles(spec)}


def agent_size(spec: str, agent: Agent | None = None) -> dict[str, Any] | None:
    """``parameters`` (the networks' parameter count) and ``bytes`` (their bundles' weights
    files; None if a bundle is not found) of ``spec``'s agent (``agent`` if given, else made
    from ``spec``), summed over its distinct networks; None when it has no network."""
    agent = agent if agent is not None else make_agent(spec)
    policies = _policies(agent)
    if not policies:
        return None
    # needs torch (the train extra): imported only when a network is used
    from agents.neural.bundle import WEIGHTS

    folders = _bundles(spec)
    shas = [p.manifest.get("weights_sha256") for p in policies]
    size = None if any(s not in folders for s in shas) else sum((folders[s] / WEIGHTS).stat().st_size for s in shas)
    return {"parameters": sum(sum(t.numel() for t in p.net.parameters()) for p in policies), "bytes": size}


# ---------------------------------------------------------------------- saved pairs
def _identity(spec: str, agent: Agent) -> dict[str, Any]:
    """What the agent is, beyond its spec string: the resolved spec and its networks' weights."""
    return {
        "spec": resolve_spec(spec),
        "weights_sha256": sorted(p.manifest.get("weights_sha256") for p in _policies(agent)),
    }


def pair_path(pairs_dir: str | os.PathLike[str], spec_a: str, spec_b: str) -> Path:
    """The file of the pair {A, B} in ``pairs_dir`` (the same for B vs A)."""
    x, y = sorted((spec_a, spec_b))
    digest = hashlib.sha256(f"{x}\0{y}".encode()).hexdigest()[:10]
    slug = "-vs-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", agent_label(s))[:40] for s in (x, y))
    return Path(pairs_dir) / f"{slug}-{digest}.json"


def _read_pair(path: Path) -> dict[str, Any] | None:
    """A saved pair's record (None if there is no file); ``LeagueError`` if it is corrupt."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LeagueError(f"league pair file {path} is corrupt (not readable JSON: {e}); delete it to replay") from None
    num = (int, float)
    ok = (
        isinstance(data, dict)
        and data.get("format") == PAIR_FORMAT
        and all(k in data for k in _PAIR_KEYS)
        and isinstance(data.get("mean"), num)
        and isinstance(data.get("games"), int)
        and data["games"] >= 1
        and all(
            isinstance(data.get(k), list) and len(data[k]) == 2 and all(isinstance(x, num) for x in data[k])
            for k in ("ci95", "deal_wins")
        )
    )
    if not ok:
        raise LeagueError(f"league pair file {path} is corrupt (not a {PAIR_FORMAT} record); delete it to replay")
    pair: dict[str, Any] = data
    return pair


def _pair_key(
    pair: tuple[str, str], identity: dict[str, Any], deal_set: DealSet, checksum: str, seed: int, rules: RuleConfig
) -> dict[str, Any]:
    return {
        "rules": rules.to_dict(),
        "agents": list(pair),
        "identity": [identity[pair[0]], identity[pair[1]]],
        "checksum": checksum,
        "deals_checksum": deal_set.checksum,
        "deals": len(deal_set),
        "seed": seed,
    }


def _reuse(saved: dict[str, Any] | None, key: dict[str, Any]) -> dict[str, Any] | None:
    """The saved result as A = key's first agent, or None when it is of another league."""
    if saved is None:
        return None
    same = {k: saved.get(k) for k in _SAME_KEYS}
    if same == json.loads(json.dumps(key)):
        return saved
    flipped = dict(key, agents=key["agents"][::-1], identity=key["identity"][::-1])
    if same == json.loads(json.dumps(flipped)):  # saved as B vs A: every d has the other sign
        lo, hi = saved["ci95"]
        return dict(saved, mean=-saved["mean"], ci95=[-hi, -lo], deal_wins=saved["deal_wins"][::-1])
    return None


# ---------------------------------------------------------------------- the league
def league(
    specs: list[str],
    deal_set: DealSet,
    full_checksum: str,
    *,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    torch_threads: int | None = None,
    time_positions: int = DEFAULT_TIME_POSITIONS,
    pairs_dir: str | os.PathLike[str] | None = None,
    rules: RuleConfig | None = None,
    other_rules: bool = False,
) -> dict[str, Any]:
    """Round robin among ``specs`` on ``deal_set``; returns the league report dict.

    Every agent is made, and every saved pair in ``pairs_dir`` read, before anything is timed
    or played, so a bad one costs no evaluation; ``torch_threads``: as ``runner.run_duplicate``.

    Args:
        time_positions: decisions timed per agent (``decision_views``); 0 skips the timing.
        pairs_dir: save each finished pair here and reuse the pairs saved by an earlier run of
            the same league (module docstring).
        rules: the rule variants of every hand, the timed ones too (default RULES.md).
        other_rules: let a policy bundle play under rules other than its manifest's.

    Returns:
        ``agents``, ``labels``, ``deal_set``, ``checksum``, ``deals``, ``seed``, ``mean`` (row vs
        column), ``ci95``, ``deal_wins``, ``elo``, ``ranking``; ``timing`` (per spec ``median_s``,
        ``mean_s``, ``decisions``; None when skipped), ``time_positions``, ``size`` (per spec
        ``parameters``, ``bytes``, or None), as they would be if reused pairs were played again.

    Raises:
        LeagueError: fewer than two different agents, or a corrupt pair file in ``pairs_dir``.
        AgentSpecError: an agent spec is unknown or its file missing or corrupt.
        RulesMismatchError: a bundle trained under other rules (``runner.check_rules``).
    """
    rules = rules or RuleConfig()
    _check_league(specs, time_positions)
    check_rules(specs, rules, other_rules)
    agents = {spec: make_agent(spec, seed) for spec in specs}
    identity = {spec: _identity(spec, agent) for spec, agent in agents.items()}
    pairs = [(i, j) for i in range(len(specs)) for j in range(i + 1, len(specs))]
    keys = {(i, j): _pair_key((specs[i], specs[j]), identity, deal_set, full_checksum, seed, rules) for i, j in pairs}
    saved = {p: _read_pair(pair_path(pairs_dir, specs[p[0]], specs[p[1]])) for p in pairs} if pairs_dir else {}
    views = decision_views(deal_set, time_positions, seed, rules=rules) if time_positions else []
    timing, size = _time_and_size(agents, views, seed, torch_threads, progress)

    def play(i: int, j: int) -> dict[str, Any]:
        found = _reuse(saved.get((i, j)), keys[(i, j)])
        if found is not None:
            if progress:
                print(f"[league] {specs[i]} vs {specs[j]}: saved in {pairs_dir}", file=sys.stderr, flush=True)
            return found
        return _play_pair(
            specs[i], specs[j], deal_set, keys[(i, j)], pairs_dir, seed, workers, progress, torch_threads, rules
        )

    results = {p: play(*p) for p in pairs}
    return _league_report(specs, deal_set, full_checksum, seed, rules, results, time_positions, timing, size)


def _league_report(
    specs: list[str],
    deal_set: DealSet,
    full_checksum: str,
    seed: int,
    rules: RuleConfig,
    results: dict[tuple[int, int], dict[str, Any]],
    time_positions: int,
    timing: dict[str, Any] | None,
    size: dict[str, Any],
) -> dict[str, Any]:
    """``league``'s report from every pair's result (row vs column), with the Elo ranking."""
    k = len(specs)
    mean, interval, scores, games = _matrices(k, results)
    elo = elo_ratings(scores, games)
    order = sorted(range(k), key=lambda i: -elo[i])
    return {
        "agents": specs,
        "labels": agent_labels(specs),
        "deal_set": deal_set.name,
        "checksum": full_checksum,
        "deals": len(deal_set),
        "seed": seed,
        "rules": rules.to_dict(),
        "mean": mean,
        "ci95": interval,
        "deal_wins": scores,
        "elo": elo,
        "ranking": [{"agent": specs[i], "elo": round(elo[i], 1)} for i in order],
        "time_positions": time_positions,
        "timing": timing,
        "size": size,
    }


def _check_league(specs: list[str], time_positions: int) -> None:
    """Refuse a league of fewer than two different agents, or a negative number of timed decisions."""
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise LeagueError(f"a league needs at least two different agents, got {specs}")
    if time_positions < 0:
        raise LeagueError(f"time_positions must be >= 0, got {time_positions}")


def _play_pair(
    a: str,
    b: str,
    deal_set: DealSet,
    key: dict[str, Any],
    pairs_dir: str | os.PathLike[str] | None,
    seed: int,
    workers: int,
    progress: bool,
    torch_threads: int | None,
    rules: RuleConfig,
) -> dict[str, Any]:
    """One pair played in duplicate (no matches), its figures saved in ``pairs_dir`` when given."""
    run = run_duplicate(
        a,
        b,
        deal_set,
        seed=seed,
        workers=workers,
        matches=False,
        progress=progress,
        torch_threads=torch_threads,
        rules=rules,
        other_rules=True,  # checked by league
    )
    result = _pair_result([r.d for r in run.records])
    if pairs_dir:
        write_json_atomic(
            pair_path(pairs_dir, a, b), {"format": PAIR_FORMAT, **key, "deal_set": deal_set.name, **result}
        )
    return result


def _matrices(k: int, results: dict[tuple[int, int], dict[str, Any]]) -> tuple[Any, Any, Any, Any]:
    """The league's matrices (row vs column) from each pair's figures: mean d, its interval, deals
    won (a tie counting half) and deals played."""
    mean = [[0.0] * k for _ in range(k)]
    interval: list[list[list[float] | None]] = [[None] * k for _ in range(k)]
    scores = [[0.0] * k for _ in range(k)]
    games = [[0.0] * k for _ in range(k)]
    for (i, j), result in results.items():
        m, (lo, hi) = result["mean"], result["ci95"]
        mean[i][j], mean[j][i] = m, -m
        interval[i][j], interval[j][i] = [lo, hi], [-hi, -lo]
        scores[i][j], scores[j][i] = result["deal_wins"]
        games[i][j] = games[j][i] = result["games"]
    return mean, interval, scores, games


def _time_and_size(
    agents: dict[str, Agent], views: list[Any], seed: int, torch_threads: int | None, progress: bool
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """Each agent's time per decision on ``views`` (None when there are none) and its size."""
    timing: dict[str, Any] | None = {} if views else None
    size: dict[str, Any] = {}
    for spec, agent in agents.items():
        if progress and views:
            print(f"[league] timing {spec} on {len(views)} decisions", file=sys.stderr, flush=True)
        if timing is not None:
            timing[spec] = time_decisions(spec, views, seed, torch_threads)
        size[spec] = agent_size(spec, agent)
    return timing, size


def _pair_result(d: list[float]) -> dict[str, Any]:
    """A pair's figures from its deals' d (row minus column): mean, interval, deals won, deals."""
    wins = sum(x > 0 for x in d) + 0.5 * sum(x == 0 for x in d)
    return {"mean": mean_sd(d)[0], "ci95": list(ci95(d)), "deal_wins": [wins, len(d) - wins], "games": len(d)}


def ladder_markdown(rep: dict[str, Any], against: str = "heuristic") -> str:
    """A league report as the README's headline table (markdown): every agent by Elo, its mean d
    against ``against`` with the 95% interval, its median time per decision and its parameters;
    from the shipped ladder (``policies/league.json``), so the table cannot drift from it."""
    names = rep["agents"]
    labels = dict(zip(names, rep.get("labels") or names, strict=True))
    ref = names.index(against) if against in names else None
    timing, size = rep.get("timing") or {}, rep.get("size") or {}
    lines = [
        f"| player | Elo | vs `{against}`, game points per deal [95% CI] | median ms a decision | parameters |",
        "|---|---|---|---|---|",
    ]
    for row in rep["ranking"]:
        i = names.index(row["agent"])
        vs = "-"
        if ref is not None and i != ref:
            lo, hi = rep["ci95"][i][ref]
            vs = f"{rep['mean'][i][ref]:+.2f} [{lo:+.2f}, {hi:+.2f}]"
        t = timing.get(row["agent"])
        ms = f"{1e3 * t['median_s']:.3g}" if t else "-"
        s = size.get(row["agent"])
        params = f"{s['parameters']:,}" if s else "-"
        lines.append(f"| `{labels[row['agent']]}` | {row['elo']:.0f} | {vs} | {ms} | {params} |")
    return "\n".join(lines)


def format_league(rep: dict[str, Any]) -> str:
    """Ratings with time per decision and size, then the matrix of mean d (row as A against
    column as B); agents by their labels, with the specs they stand for when those differ."""
    names = rep["agents"]
    labels = rep.get("labels") or names
    label = dict(zip(names, labels, strict=True))
    w = max(10, *(len(n) for n in labels))
    lines = [f"league on {rep['deal_set']} ({rep['deals']} deals, sha256 {rep['checksum'][:16]}...)", ""]
    timing, size = rep.get("timing"), rep.get("size") or {}
    lines.append(
        f"  {'agent':<{w}}  {'elo':>7}  {'median ms':>10}  {'mean ms':>10}  {'parameters':>10}  {'weights bytes':>13}"
    )
    for row in rep["ranking"]:
        t = (timing or {}).get(row["agent"])
        ms = f"{1e3 * t['median_s']:10.3f}  {1e3 * t['mean_s']:10.3f}" if t else f"{'-':>10}  {'-':>10}"
        s = size.get(row["agent"])
        params = f"{s['parameters']:>10,}" if s else f"{'-':>10}"
        nbytes = f"{s['bytes']:>13,}" if s and s["bytes"] is not None else f"{'-':>13}"
        lines.append(f"  {label[row['agent']]:<{w}}  {row['elo']:7.1f}  {ms}  {params}  {nbytes}")
    if timing:
        n = max(t["decisions"] for t in timing.values() if t)
        lines.append(f"  (ms per decision, on the same {n} decisions with a choice, after one warm-up call)")
    lines += [
        "",
        "  mean d, row vs column (game points per deal)",
        "  " + " " * w + "".join(f"{n[:10]:>12}" for n in labels),
    ]
    for i, n in enumerate(labels):
        cells = "".join(f"{'-':>12}" if i == j else f"{rep['mean'][i][j]:>+12.2f}" for j in range(len(names)))
        lines.append(f"  {n:<{w}}" + cells)
    differ = [(lab, spec) for lab, spec in zip(labels, names, strict=True) if lab != spec]
    if differ:
        lines += ["", *(f"  {lab} = {spec}" for lab, spec in differ)]
    return "\n".join(lines)

"""Deal-set roles (development vs test) and the error rate of promotion over a whole run.

The test set is for final reports only: promotion refuses it by its cards, whatever the file is
called. The O'Brien-Fleming bounds are checked against the published constants and, for the
smaller per-test error rates a run spends, against a simulation of the test itself.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from eval.deals import (
    DEVELOPMENT,
    STANDARD_SETS,
    TEST,
    DealSetRoleError,
    generate,
    load_named,
    require_development,
    save,
)
from eval.promote import POINTER_FORMAT, PromotionConfig, PromotionError, promote
from eval.stats import obf_bound, obf_constant, sequential_decision

TEST960_SHA256 = "6dfc8620a588e3e362f83cf524d73bd7a5d218fee3c4576e1f88db877129f3e0"


def _keys(ds) -> set[str]:
    return {json.dumps(d.to_dict(), sort_keys=True) for d in ds.deals}


def test_test960_is_the_only_test_set_and_reproducible_from_its_seed():
    roles = {name: spec.role for name, spec in STANDARD_SETS.items()}
    assert [n for n, r in roles.items() if r == TEST] == ["test960"]
    ds = load_named("test960")
    assert ds.role == TEST and len(ds) == 960 and ds.checksum == TEST960_SHA256
    assert generate("test960", 20261130, 960).checksum == TEST960_SHA256
    for name in ("small", "standard960", "dev960"):
        other = load_named(name)
        assert other.role == DEVELOPMENT
        assert not _keys(other) & _keys(ds), f"{name} shares deals with the test set"


def test_a_subset_of_the_test_set_is_still_the_test_set():
    ds = load_named("test960")
    assert ds.head(8).role == TEST
    with pytest.raises(DealSetRoleError, match="test set"):
        require_development(ds.head(8), "promotion")


def test_a_renamed_copy_of_test_deals_is_recognised_by_its_cards(tmp_path):
    ds = load_named("test960").head(16)
    mixed = generate("mine", 5, 16)
    # one test deal hidden among development deals, saved under an innocent name
    from eval.deals import DealSet, checksum_of

    deals = mixed.deals[:15] + ds.deals[3:4]
    path = tmp_path / "my_deals.json"
    save(DealSet("my_deals", None, deals, checksum_of(deals)), path)
    with pytest.raises(DealSetRoleError):
        require_development(str(path), "tuning")
    clean = tmp_path / "clean.json"
    save(mixed, clean)
    assert require_development(str(clean), "tuning").role == DEVELOPMENT


def test_promotion_refuses_the_test_set_and_writes_nothing(tmp_path):
    (tmp_path / "heur.json").write_text(json.dumps({"agent": "heuristic"}))
    pointer = tmp_path / "champion.json"
    pointer.write_text(json.dumps({"format": POINTER_FORMAT, "champion": "random"}))
    before = pointer.read_text()
    cfg = PromotionConfig(candidate=str(tmp_path / "heur.json"), champion=str(pointer), deal_set="test960", deals=8)
    with pytest.raises(PromotionError, match="test set"):
        promote(cfg)
    assert pointer.read_text() == before
    assert not (tmp_path / "promotions.jsonl").exists()


def test_promotion_defaults_to_a_development_set():
    assert STANDARD_SETS[PromotionConfig(candidate="a", champion="b").deal_set].role == DEVELOPMENT


# ---------------------------------------------------------------------- error rates
@pytest.mark.parametrize(
    "looks, published",
    # Jennison and Turnbull (2000), Table 2.3, two-sided alpha 0.05
    [(2, 1.977), (3, 2.004), (4, 2.024), (5, 2.040), (10, 2.087)],
)
def test_numeric_obf_constants_match_the_published_table(looks, published):
    from eval.stats import _solve_obf

    assert _solve_obf(looks, 0.025) == pytest.approx(published, abs=1.5e-3)


def test_one_look_is_the_normal_quantile():
    from statistics import NormalDist

    for alpha in (0.025, 0.01, 0.005, 0.0025):
        assert obf_constant(1, alpha) == pytest.approx(NormalDist().inv_cdf(1 - alpha), abs=1e-3)


def test_smaller_alpha_raises_every_bound():
    for k in range(1, 5):
        assert obf_bound(k, 4, 0.025 / 4) > obf_bound(k, 4) + 0.3


def _false_promotion_rate(alpha: float, looks: int, n: int, trials: int, seed: int) -> float:
    """Simulated share of tests that promote a candidate exactly as good as the champion."""
    rng = np.random.default_rng(seed)
    promoted = 0
    bounds = [round(k * n / looks) for k in range(looks + 1)]
    for _ in range(trials):
        d = rng.standard_normal(n).tolist()
        for k in range(1, looks + 1):
            dec = sequential_decision(d[: bounds[k]], k, looks, alpha)
            if dec.decision != "continue":
                promoted += dec.decision == "promote"
                break
    return promoted / trials


def test_simulated_false_promotion_rate_is_within_alpha():
    # A run with four tests spends 0.025 / 4 per test; the simulated rate stays near that, and a
    # whole run of four independent tests stays under 2.5% (the union bound).
    per_test = 0.025 / 4
    rate = _false_promotion_rate(per_test, looks=4, n=192, trials=4000, seed=1)
    se = math.sqrt(per_test * (1 - per_test) / 4000)
    assert rate <= per_test + 3 * se
    assert 1 - (1 - rate) ** 4 <= 0.025 + 4 * 3 * se
    # at the full 2.5% per test, four tests would exceed 2.5% per run by far: the reason to spend
    full = _false_promotion_rate(0.025, looks=4, n=192, trials=4000, seed=2)
    assert 1 - (1 - full) ** 4 > 0.05

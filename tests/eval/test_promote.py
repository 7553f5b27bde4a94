"""Promotion: only a candidate shown better replaces the champion; bad files change nothing."""

from __future__ import annotations

import json

import pytest

from eval.__main__ import main
from eval.promote import POINTER_FORMAT, PromotionConfig, PromotionError, promote


def _write(path, data) -> str:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)


@pytest.fixture
def league_dir(tmp_path):
    _write(tmp_path / "heur.json", {"agent": "heuristic"})
    _write(tmp_path / "rand.json", {"agent": "random"})
    pointer = _write(tmp_path / "champion.json", {"format": POINTER_FORMAT, "champion": "rand.json"})
    return tmp_path, pointer


def _cfg(candidate, champion, **kw) -> PromotionConfig:
    return PromotionConfig(candidate=candidate, champion=champion, deal_set="small", deals=32, looks=2, **kw)


def _history(tmp_path) -> list[dict]:
    path = tmp_path / "promotions.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_better_candidate_is_promoted_and_recorded(league_dir):
    tmp_path, pointer = league_dir
    entry = promote(_cfg(str(tmp_path / "heur.json"), pointer))
    assert entry["promoted"] and entry["ci95"][0] > 0
    data = json.loads((tmp_path / "champion.json").read_text())
    assert (
        data["format"] == POINTER_FORMAT and data["champion"] == "heur.json" and data["previous"].endswith("rand.json")
    )
    (line,) = _history(tmp_path)
    for key in ("when", "candidate", "champion", "mean", "ci95", "checksum", "deal_set", "promoted"):
        assert key in line
    assert line["promoted"] is True


def test_worse_or_equal_candidate_is_refused_and_champion_unchanged(league_dir):
    tmp_path, pointer = league_dir
    promote(_cfg(str(tmp_path / "heur.json"), pointer))  # heuristic is champion now
    before = (tmp_path / "champion.json").read_bytes()
    worse = promote(_cfg(str(tmp_path / "rand.json"), pointer))
    same = promote(_cfg("heuristic", pointer))  # identical play: every d is 0
    assert not worse["promoted"] and worse["decision"] == "reject" and worse["mean"] < 0
    assert not same["promoted"] and same["mean"] == 0
    assert (tmp_path / "champion.json").read_bytes() == before
    assert [h["promoted"] for h in _history(tmp_path)] == [True, False, False]


def test_missing_or_corrupt_files_are_refused_clearly(league_dir, capsys):
    tmp_path, pointer = league_dir
    before = (tmp_path / "champion.json").read_bytes()
    with pytest.raises(PromotionError, match="candidate: agent file .*missing.json.* does not exist"):
        promote(_cfg(str(tmp_path / "missing.json"), pointer))
    corrupt = _write(tmp_path / "corrupt.json", '{"agent": "heuri')
    with pytest.raises(PromotionError, match="candidate: .*not valid JSON"):
        promote(_cfg(corrupt, pointer))
    _write(tmp_path / "champion2.json", {"format": POINTER_FORMAT, "champion": "gone.json"})
    with pytest.raises(PromotionError, match="champion: .*gone.json.* does not exist"):
        promote(_cfg(str(tmp_path / "heur.json"), str(tmp_path / "champion2.json")))
    code = main(
        ["promote", "--candidate", corrupt, "--champion", pointer, "--deal-set", "small", "--deals", "8", "--quiet"]
    )
    assert code == 2 and "not valid JSON" in capsys.readouterr().err
    assert (tmp_path / "champion.json").read_bytes() == before
    assert _history(tmp_path) == []


def test_cli_promote_exit_codes(league_dir, capsys):
    tmp_path, pointer = league_dir
    args = ["--champion", pointer, "--deal-set", "small", "--deals", "32", "--looks", "2", "--quiet"]
    assert main(["promote", "--candidate", str(tmp_path / "rand.json"), *args]) == 1
    assert "NOT PROMOTED" in capsys.readouterr().out
    assert main(["promote", "--candidate", str(tmp_path / "heur.json"), *args]) == 0
    assert "PROMOTED" in capsys.readouterr().out
    assert json.loads((tmp_path / "champion.json").read_text())["champion"] == "heur.json"


def test_cli_promote_says_when_the_pointer_is_not_written(tmp_path, capsys):
    pointer = tmp_path / "new" / "champion.json"  # no pointer yet: the champion is an agent name
    args = ["--champion", "heuristic", "--pointer", str(pointer), "--deal-set", "small", "--deals", "32"]
    assert main(["promote", "--candidate", "random", *args, "--looks", "2", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert f"pointer: {pointer} (not written)" in out and not pointer.exists()
    assert main(["promote", "--candidate", "heuristic", "--champion", "random", "--pointer", str(pointer),
                 "--deal-set", "small", "--deals", "32", "--looks", "2", "--quiet"]) == 0  # fmt: skip
    assert f"pointer: {pointer} (moved to the candidate)" in capsys.readouterr().out and pointer.exists()


def test_cli_promote_help_says_its_exit_statuses(capsys):
    with pytest.raises(SystemExit) as done:
        main(["promote", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert done.value.code == 0 and "95% bound" in out and "%%" not in out
    assert "0 promoted" in out and "1 not promoted" in out and "2 bad input" in out

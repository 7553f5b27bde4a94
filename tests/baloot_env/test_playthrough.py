"""Golden playthroughs: rules, observation layout and rewards pinned in readable files.

A failure here means a rule, an observation piece or a reward changed: read the diff, and if
the change is intended, bump the env/observation version as STYLE.md says and regenerate with
``python -m baloot_env.playthrough SEED > tests/baloot_env/golden/playthrough_SEED.txt``.
"""

from pathlib import Path

import pytest

from baloot_env.playthrough import playthrough

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("seed", [2, 3])
def test_playthrough_matches_golden_file(seed):
    want = (GOLDEN / f"playthrough_{seed}.txt").read_text()
    got = playthrough(seed)
    if got != want:
        diff = next(i for i, (a, b) in enumerate(zip(got.splitlines(), want.splitlines(), strict=False)) if a != b)
        pytest.fail(
            f"playthrough {seed} differs from the golden file at line {diff + 1}:\n"
            f"  got:  {got.splitlines()[diff][:200]}\n  want: {want.splitlines()[diff][:200]}"
        )


def test_golden_files_cover_hokum_doubling_and_sun():
    text = (GOLDEN / "playthrough_2.txt").read_text() + (GOLDEN / "playthrough_3.txt").read_text()
    assert "'contract': 'hokum'" in text and "'level': 3" in text and "'contract': 'sun'" in text

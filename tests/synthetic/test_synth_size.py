"""Output size follows ``target_bytes``; the command line writes files and reports speed."""

from __future__ import annotations

import pytest

from timelineview.synthetic import LAYOUTS, CardSpec, generate_card
from timelineview.synthetic.__main__ import main


@pytest.mark.parametrize("layout", LAYOUTS)
def test_target_bytes_respected(layout, tmp_path) -> None:
    target = 3_000_000
    out = tmp_path / ("card" if layout == "msprof_per_iteration" else "card.json")
    truth = generate_card(out, CardSpec(steps=4, with_duplicates=True), layout, target_bytes=target)
    on_disk = sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file())
    assert on_disk == truth.bytes_written
    assert abs(truth.bytes_written - target) < 0.1 * target
    assert len(truth.step_start_ns) == 4


def test_tiny_target_reduces_steps(tmp_path) -> None:
    truth = generate_card(tmp_path / "t.json", CardSpec(steps=50), "mindspore_gen_b", target_bytes=20_000)
    assert len(truth.step_start_ns) < 50
    assert truth.bytes_written < 40_000


def test_cli_single_card_and_cluster(tmp_path, capsys) -> None:
    assert main([str(tmp_path / "one.json"), "--steps", "2", "--tasks-per-step", "40"]) == 0
    assert (tmp_path / "one.json").exists() and (tmp_path / "one.json.truth.json").exists()
    assert main([str(tmp_path / "cl"), "--layout", "mindspore_gen_c", "--cards", "3", "--target-mb", "0.3",
                 "--steps", "2", "--slow-card", "1", "--slow-data-card", "2", "--seed", "1"]) == 0
    assert sorted(p.name for p in (tmp_path / "cl").iterdir()) == [
        f"ascend_timeline_display_{r}.json" for r in range(3)]
    assert len(list((tmp_path / "cl.truth").iterdir())) == 3
    out = capsys.readouterr().out
    assert "MB/s" in out and "rank 2" in out

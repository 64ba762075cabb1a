"""The second-order bench on a tiny shape: each contender's child measures what it names, and the table says so."""

from __future__ import annotations

import numpy as np

from benchmarks import second_order


def test_the_guide_and_gradlib_children_agree_on_a_tiny_shape(tmp_path, monkeypatch):
    monkeypatch.setitem(second_order.SHAPES, "tiny", (3, (4,)))
    monkeypatch.setattr(second_order, "BATCH", 6)
    rows = []
    for k, contender in enumerate((second_order.BASELINE, "gradlib auto", "gradlib loop")):
        out = tmp_path / f"{k}.npy"
        row = second_order.child("tiny", contender, 2, str(out))
        rows.append({"contender": contender, **row, "value": np.load(out)})
        assert len(row["seconds"]) == 2 and row["first"] > 0 and row["peak_mb"] >= 0
    assert rows[1]["method"] == "forward_laplacian" and rows[2]["method"] == "loop"
    np.testing.assert_allclose(rows[1]["value"], rows[0]["value"], rtol=2e-4, atol=1e-5)
    np.testing.assert_allclose(rows[2]["value"], rows[0]["value"], rtol=2e-4, atol=1e-5)
    for r in rows:
        r["ratio"] = [1.0, 2.0]
        r["ratio_text"] = "1.5x [1, 2]"
        r["max_rel_diff"] = 0.0
    table = second_order.markdown("tiny", rows + [{"contender": "broken", "error": "boom"}])
    assert "| gradlib auto | forward_laplacian |" in table and "| broken | failed: boom |" in table


def test_the_peak_s_rise_is_the_high_water_mark_above_the_reset_and_never_below_zero(monkeypatch):
    monkeypatch.setattr(second_order, "_peak_mb", lambda: 100.5)
    assert second_order._rise_mb(100.0) == 0.5   # the mark rose half a MB above the memory at the reset
    assert second_order._rise_mb(100.66) == 0.0   # freed below the reset's reading (CI saw -0.16 MB): 0

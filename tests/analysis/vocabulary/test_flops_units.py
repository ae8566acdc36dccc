"""The unit FLOPs are shown in: the largest decimal prefix that leaves the largest value at 1 or more."""

from timelineview.analysis.vocabulary.flops_units import flops_unit


def test_the_prefix_follows_the_largest_value():
    assert flops_unit([3.2e14, 9e11]) == (1e12, "TFLOP")
    assert flops_unit([999e9, None, 0.0]) == (1e9, "GFLOP")
    assert flops_unit([1.0e15]) == (1e15, "PFLOP")
    assert flops_unit([5e6]) == (1e6, "MFLOP")
    assert flops_unit([12.0]) == (1.0, "FLOP")


def test_without_a_value_it_is_tflop():
    assert flops_unit([]) == (1e12, "TFLOP") and flops_unit([None, 0.0]) == (1e12, "TFLOP")


def test_text_in_a_given_unit_or_its_own():
    from timelineview.analysis.vocabulary.flops_units import flops_text

    assert flops_text(1.59384e8) == "159.384 MFLOP"
    assert flops_text(1.06e8, (1e6, "MFLOP")) == "106.000 MFLOP" and flops_text(2.5e12) == "2.500 TFLOP"

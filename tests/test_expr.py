import pytest

from matcher import expr


@pytest.mark.parametrize(
    ("source", "facts", "value"),
    [
        ("floor_to(free_gib / total_gib - 0.02, 0.01)", {"free_gib": 6.93, "total_gib": 8.0}, 0.84),
        ("max(2048, int(floor_to(n / 2, 256)))", {"n": 16384}, 8192),
        ("a if a > b else b", {"a": 1, "b": 2}, 2),
        ("engine == 'vllm' and x >= 0.9", {"engine": "vllm", "x": 0.95}, True),
        ("not (1 < x < 3)", {"x": 2}, False),
        ("clamp(x, 0.1, 0.95)", {"x": 1.3}, 0.95),
    ],
)
def test_evaluates(source, facts, value):
    assert expr.parse(source).evaluate(facts) == pytest.approx(value)


@pytest.mark.parametrize(
    "source",
    ["__import__('os').system('true')", "x.real", "x[0]", "(lambda: 1)()", "[i for i in x]", "open('f')",
     "f(x=1)", "None", "{1: 2}", "x := 1"],
)
def test_rejects_everything_but_the_small_language(source):
    with pytest.raises(expr.ExpressionError):
        expr.parse(source)


def test_missing_fact_is_unknown_not_an_error():
    with pytest.raises(expr.Unknown) as info:
        expr.parse("free_gib / total_gib").evaluate({"free_gib": 1.0})
    assert info.value.name == "total_gib"


@pytest.mark.parametrize("source", ["'a' * 10 ** 9", "10 ** 1000", "x / 0"])
def test_hostile_arithmetic_is_unknown(source):
    with pytest.raises(expr.Unknown):
        expr.parse(source).evaluate({"x": 1})


def test_names_are_collected_without_functions():
    assert expr.parse("min(a, b) + floor(c)").names == {"a", "b", "c"}


def test_presence_functions():
    facts = {"b": 2}
    assert expr.parse("has(b)").evaluate(facts) is True
    assert expr.parse("has(a, b)").evaluate(facts) is False
    assert expr.parse("coalesce(a, b) * 10").evaluate(facts) == 20
    assert expr.parse("coalesce(a, b)").names == {"a", "b"}
    with pytest.raises(expr.Unknown):
        expr.parse("coalesce(a, c)").evaluate(facts)
    with pytest.raises(expr.ExpressionError):
        expr.parse("has(1)")

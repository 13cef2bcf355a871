"""Safe expressions over facts: the conditions and computed values of the catalog.

A catalog expression is a Python-syntax expression restricted to numbers, strings, fact
names, arithmetic, comparisons, ``and``/``or``/``not``, ``x if c else y`` and calls to a
fixed set of math functions. It is parsed with :mod:`ast` and walked node by node; nothing
is ever passed to ``eval``, and attribute access, subscripts, lambdas and comprehensions
are rejected when the catalog loads.
"""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from .budget import BudgetError, check_int, check_power

Number = int | float


def _clamp(value: Number, low: Number, high: Number) -> Number:
    return max(low, min(high, value))


def _floor_to(value: Number, step: Number) -> float:
    """Round down to a multiple of step (0.01 for a utilization, 256 for a token count)."""
    return round(math.floor(value / step + 1e-9) * step, 10)


def _ceil_to(value: Number, step: Number) -> float:
    return round(math.ceil(value / step - 1e-9) * step, 10)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
    "sqrt": math.sqrt,
    "log2": math.log2,
    "clamp": _clamp,
    "floor_to": _floor_to,
    "ceil_to": _ceil_to,
    "int": int,
}

# Functions over the presence of facts rather than their values: has(a, b) is true when the
# log gave every one of them; coalesce(a, b) is the first one the log gave.
_PRESENCE = ("has", "coalesce")

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_CMPOPS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}
_MAX_POWER = 64

# CPython keeps the AST constructor's recursion depth in interpreter-wide state, so two
# threads parsing at once can fail with "SystemError: AST constructor recursion depth
# mismatch" (CPython issue 106905; seen here under a threaded batch cluster). Expressions are
# parsed lazily, inside scans that batch runs on worker threads, so parsing is serialised.
_PARSE_LOCK = threading.Lock()


class ExpressionError(ValueError):
    """The expression is not in the allowed language."""


class Unknown(Exception):
    """A fact the expression needs is not in the log."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class Expression(msgspec.Struct, frozen=True):
    source: str
    tree: ast.expr
    names: frozenset[str]

    def evaluate(self, facts: Mapping[str, Any]) -> Any:
        """Evaluate over facts; raises Unknown when a named fact is missing, BudgetError when
        a value grows over the budget (matcher/budget.py)."""
        try:
            return _eval(self.tree, facts)
        except (ZeroDivisionError, OverflowError, TypeError, ValueError) as exc:
            raise Unknown(f"{type(exc).__name__}: {exc}") from None


def parse(source: str) -> Expression:
    """Parse and check an expression; raise ExpressionError naming what is not allowed."""
    if len(source) > 500:
        raise ExpressionError("expression longer than 500 characters")
    try:
        with _PARSE_LOCK:
            tree = ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f"syntax error: {exc.msg}") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        _check_node(node, names)
    if not names:  # a constant: a power tower is refused here, when the catalog loads
        try:
            _eval(tree, {})
        except BudgetError as exc:
            raise ExpressionError(str(exc)) from None
        except (Unknown, ArithmeticError, TypeError, ValueError):
            pass
    return Expression(source, tree, frozenset(names))


def _check_node(node: ast.AST, names: set[str]) -> None:
    if isinstance(node, ast.Name):
        if node.id not in FUNCTIONS and node.id not in _PRESENCE:
            names.add(node.id)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PRESENCE:
        if node.keywords or not node.args or not all(isinstance(a, ast.Name) for a in node.args):
            raise ExpressionError(f"{node.func.id}() takes fact names only")
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExpressionError(
                f"call of {ast.unparse(node.func)!r} is not allowed "
                f"(allowed: {', '.join(sorted([*FUNCTIONS, *_PRESENCE]))})"
            )
        if node.keywords:
            raise ExpressionError("keyword arguments are not allowed")
        return
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, str, bool)) or node.value is None:
            raise ExpressionError(f"constant {node.value!r} is not allowed")
        return
    allowed = (
        ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Load,
        ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd,
        *_BINOPS, *_CMPOPS,
    )
    if not isinstance(node, allowed):
        raise ExpressionError(f"{type(node).__name__} is not allowed in an expression")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))


def _eval(node: ast.expr, facts: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in facts:
            raise Unknown(node.id)
        return facts[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, facts), _eval(node.right, facts)
        if not (_is_number(left) and _is_number(right)):
            raise Unknown("arithmetic needs numbers")
        if isinstance(node.op, ast.Pow):
            if abs(right) > _MAX_POWER:
                raise Unknown("exponent too large")
            check_power(left, right)
        return check_int(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, facts)
        if isinstance(node.op, ast.Not):
            return not value
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, facts) for v in node.values)
        return any(_eval(v, facts) for v in node.values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, facts)
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, facts)
            if not _CMPOPS[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, facts) else node.orelse, facts)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        if node.func.id == "has":
            return all(a.id in facts for a in node.args)  # type: ignore[attr-defined]
        if node.func.id == "coalesce":
            for arg in node.args:
                if arg.id in facts:  # type: ignore[attr-defined]
                    return facts[arg.id]  # type: ignore[attr-defined]
            raise Unknown(node.args[-1].id)  # type: ignore[attr-defined]
        args = [_eval(a, facts) for a in node.args]
        return check_int(FUNCTIONS[node.func.id](*args))
    raise ExpressionError(f"{type(node).__name__} is not allowed")  # unreachable after parse()

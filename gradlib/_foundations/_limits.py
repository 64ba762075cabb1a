"""Limits checked before anything is allocated: what one request may ask of the process."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limits", "largest_fitting"]


@dataclass(frozen=True)
class Limits:
    """Upper bounds for one request; every one is checked before TensorFlow allocates anything."""

    max_chars: int = 2_000          # length of the function text
    max_nodes: int = 400            # syntax-tree nodes in the function
    max_depth: int = 32             # nesting of brackets and runs of unary operators in the text
    max_tree_depth: int = 96        # depth of the syntax tree (a + b + c + ... nests one level per term)
    max_inputs: int = 16            # named inputs
    max_rank: int = 4               # dimensions of one tensor
    max_elements: int = 1_000_000   # elements of any one tensor (inputs and intermediates)
    max_jacobian: int = 4_000_000   # entries of the Jacobian (outputs x watched elements)
    max_eager_passes: int = 256     # passes of an eager Python loop (unstack, naive: one per output)
    max_flops: float = 4e9          # estimated work of one method (floating-point operations, with eager dispatch)
    max_bytes: float = 2e9          # estimated peak memory of one method (gradlib._perelement._cost), in bytes
    max_hessian: int = 4_000_000    # entries of a second-order result (outputs x watched elements x watched elements)
    max_unrolled: int = 512         # passes a second-order method writes out one by one into its graph (its trace)
    max_source_chars: int = 200_000     # gradlib.lint: characters of the Python source
    max_source_lines: int = 5_000       # gradlib.lint: lines of the Python source
    max_source_depth: int = 100         # gradlib.lint: nesting of brackets in the text and of the syntax tree
    max_source_steps: int = 50_000      # gradlib.lint: steps of the analysis (it stops there and reports)
    max_source_work: int = 2_000_000    # gradlib.lint: what the analysis builds (list elements, dependency-set
                                        # entries, values walked to explain a gradient); it stops there and reports
    max_source_seconds: float = 4.0     # gradlib.lint: wall-clock time of the analysis, checked between its steps


#: the default limits, what every API checks unless given ``limits=``
LIMITS = Limits()


def largest_fitting(limit: float, size: int, total: int) -> int:
    """The largest value of the factor ``size`` of the product ``total`` that keeps it within ``limit``, the other
    factors as they are: what a refusal advises ("a batch of at most 4"), so that following it is accepted.
    0 when even 1 does not fit (then no smaller value of this factor helps).

    >>> largest_fitting(250_000, 501, 501 * 501), largest_fitting(250_000, 1, 600 * 300 * 300)
    (499, 0)
    """
    others = total // size if size else 0
    return int(limit // others) if others else size

"""The public app's limits: one set, used by the form's check (``share.check_state``) and by every computation
the pages ask for (``services``), so an input the form accepts is never refused later under other numbers."""

from __future__ import annotations

from dataclasses import dataclass

import gradlib

__all__ = ["APP_LIMITS", "LINT_LIMITS", "LINT_PROJECT", "PDE_GRID", "ProjectLimits"]

#: the public app's bounds, stricter than gradlib's defaults: every method's Jacobian is cached and drawn, and so is
#: every Hessian of the playground's second-order view
APP_LIMITS = gradlib.Limits(max_elements=250_000, max_jacobian=250_000, max_flops=1e9, max_bytes=5e8,
                            max_hessian=250_000)
#: the "Check your code" page: a pasted snippet, not a whole project, checked in at most 3 s of analysis
LINT_LIMITS = gradlib.Limits(max_source_chars=20_000, max_source_lines=1_000, max_source_seconds=3.0)
#: the "PDE residuals" page: points per side of its grid (fewest, most); 64 x 64 = 4,096 collocation points, each with
#: every first and second derivative by gradlib.pde and again by nested tapes (the page's reference)
PDE_GRID = (3, 64)


@dataclass(frozen=True)
class ProjectLimits:
    """Bounds of a project uploaded to the "Check your code" page (several ``.py`` files, or ``.zip`` archives)."""

    max_files: int = 20                 # Python files checked together
    max_file_bytes: int = 20_000        # one file (the pasted snippet's LINT_LIMITS.max_source_chars)
    max_total_bytes: int = 100_000      # all the Python files together
    max_upload_bytes: int = 1_000_000   # one uploaded file or archive, as uploaded
    max_zip_entries: int = 200          # entries of one archive (folders and other files included)
    max_seconds: float = 10.0           # the analysis of all the files together (each also within LINT_LIMITS)


#: the project bounds of the "Check your code" page
LINT_PROJECT = ProjectLimits()

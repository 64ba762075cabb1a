"""The playground's downloads: the numbers together with the function, the inputs and the dtypes that made them.

The CSV starts with ``#`` lines (read it with ``pandas.read_csv(path, comment="#", index_col=0)``);
the JSON holds the same facts as fields beside the result's own.

>>> import numpy as np, pandas as pd, io, json, gradlib
>>> from dashboard.share import ShareState
>>> state = ShareState("x*x", {"x": [1, 2]})
>>> result = gradlib.GradResult(np.array([1.0, 4.0]), np.array([[2.0, 0.0], [0.0, 4.0]]), ("y[0]", "y[1]"),
...                             ("x[0]", "x[1]"), "unstack", "unstack", (("x", (2,)),))
>>> print(csv_text(state, result))  # doctest: +ELLIPSIS
# gradlib per-element gradients: row i is the gradient of y[i]; one column per watched element
# function: "x*x"
# inputs: {"x": [1, 2]}
# watched: ["x"]
# dtypes: {"x": "float32"}
# share query: "outputs=x%2Ax&inputs=%7B%22x%22%3A%5B1%2C2%5D%7D"
# method: "unstack"
# dtype: "float32"
output,y (value),x[0],x[1]
y[0],1.0,2.0,0.0
y[1],4.0,0.0,4.0
<BLANKLINE>
>>> pd.read_csv(io.StringIO(csv_text(state, result)), comment="#", index_col=0).loc["y[1]", "x[1]"]
np.float64(4.0)
>>> fields = json.loads(json_text(state, result))
>>> fields["function"], fields["inputs"], fields["dtypes"], fields["jacobian"]
('x*x', {'x': [1, 2]}, {'x': 'float32'}, [[2.0, 0.0], [0.0, 4.0]])
"""

from __future__ import annotations

import json
from typing import Any

import gradlib

from .share import ShareState, query_string, rows_of

__all__ = ["csv_text", "json_text", "provenance"]


def provenance(state: ShareState) -> dict[str, Any]:
    """What made ``result``: the function, the inputs as written, the watched inputs, each input's dtype, the link."""
    rows = rows_of(state)
    facts = {"function": state.outputs, "inputs": state.inputs,
             "watched": [row["name"] for row in rows if row["watched"]],
             "dtypes": {row["name"]: row["dtype"] for row in rows}}
    try:
        facts["share_query"] = query_string(state)      # reopens this state: /playground?<share_query>
    except gradlib.GradlibError:
        facts["share_query"] = None                     # too large for a link
    return facts


def csv_text(state: ShareState, result: gradlib.GradResult) -> str:
    """``result.to_csv()`` under a block of ``#`` lines that name the function, inputs, watched inputs and dtypes."""
    facts = {**provenance(state), "method": result.method, "dtype": result.dtype}
    lines = ["gradlib per-element gradients: row i is the gradient of y[i]; one column per watched element"]
    lines += [f"{key.replace('_', ' ')}: {json.dumps(value, separators=(', ', ': '))}" for key, value in facts.items()]
    return "".join(f"# {line}\n" for line in lines) + result.to_csv()


def json_text(state: ShareState, result: gradlib.GradResult) -> str:
    """``result.to_dict()`` with the function, inputs, watched inputs and dtypes as fields of their own."""
    return json.dumps({**provenance(state), **result.to_dict()}, indent=2)

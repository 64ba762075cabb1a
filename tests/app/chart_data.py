"""Reading a chart as the browser gets it: Plotly JSON's arrays (typed base64) back into numbers."""

import base64
import json

import numpy as np

__all__ = ["spec", "values"]


def values(data) -> np.ndarray:
    """A trace's x, y or z as an array: Plotly JSON writes arrays as typed base64 ({"dtype", "bdata", "shape"})."""
    if not isinstance(data, dict):
        return np.asarray(data)
    array = np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"])
    return array.reshape([int(k) for k in data["shape"].split(",")]) if "shape" in data else array


def spec(chart) -> dict:
    """An AppTest ``plotly_chart`` element's figure, as the JSON the page sent."""
    return json.loads(chart.proto.spec)

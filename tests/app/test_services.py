"""The app's doors into gradlib (dashboard.services): one limit set, the app's, for every door of one request."""

import numpy as np
import pytest

import gradlib
from dashboard import services


def test_the_code_door_meets_the_app_limits_like_the_compare_door():
    n = services.APP_LIMITS.max_elements + 1
    assert n <= gradlib.LIMITS.max_elements, "the test needs an input the library's defaults accept"
    inputs = {"x": np.ones(n, np.float32).tolist()}
    with pytest.raises(gradlib.ExpressionError, match=f"{services.APP_LIMITS.max_elements:,}"):
        services.tensorflow_code.__wrapped__("sum(x)", inputs, None, "float32")
    with pytest.raises(gradlib.ExpressionError, match=f"{services.APP_LIMITS.max_elements:,}"):
        services.compare.__wrapped__("sum(x)", inputs, None, "float32", ("jacobian",))

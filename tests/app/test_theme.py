"""The theme in .streamlit/config.toml: text on the accent colour is legible, and the theme switch the sidebar
names is really shown. (tests/browser/test_readable.py checks the same in a browser, as rendered.)"""

import tomllib
from pathlib import Path

import pytest

from dashboard.frame import SIDEBAR_CAPTION

CONFIG = tomllib.loads((Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml").read_text())
#: Streamlit's own backgrounds (its default light and dark themes)
BACKGROUNDS = {"light": "#ffffff", "dark": "#171614"}


def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour.lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4)]
        r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_white_text_on_the_primary_colour_reads_and_the_colour_stands_out(scheme):
    primary = CONFIG["theme"][scheme]["primaryColor"]
    assert contrast("#ffffff", primary) >= 4.5      # Streamlit writes the button and chip text in white
    assert contrast(primary, BACKGROUNDS[scheme]) >= 3


def test_the_menu_the_sidebar_names_is_shown_with_its_theme_choice():
    assert "⋮ menu" in SIDEBAR_CAPTION
    # "minimal" hides the ⋮ menu unless the page config adds items; "viewer" shows it with System/Light/Dark
    assert CONFIG["client"]["toolbarMode"] in ("viewer", "auto", "developer")
    assert all(word in SIDEBAR_CAPTION for word in ("System", "Light", "Dark"))

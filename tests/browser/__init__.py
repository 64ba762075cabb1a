"""Real-browser tests of the dashboard (a package, so that its conftest and helpers have names of their own)."""

"""gradlib dashboard: the entry script is a router and a frame; the pages live in pages/, listed in dashboard/frame.py."""

from dashboard import frame

frame.route()

"""The dashboard's own package: the router's frame, the cached door into gradlib, renderers, share links.

``app.py`` is the entry script and ``pages/`` holds the pages only; everything the pages share lives
here. gradlib (the library) never imports this package.
"""

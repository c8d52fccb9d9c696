"""surewrite: writing outputs without losing anything the tool did not write.

`paths` decides whether an output path may be written (never the repository, its records or
its .git, never a folder or file the tool did not make); `files` writes one file atomically
(a temporary file, then a rename; never a partial file, never a leftover); `tree` replaces a
whole output folder in one swap, marked with the manifest of what it holds.
"""

__version__ = "0.1.0"

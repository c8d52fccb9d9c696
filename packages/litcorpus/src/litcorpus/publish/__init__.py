"""Outputs made from the result: tables, figures, stats/, the README list, the site, exports."""

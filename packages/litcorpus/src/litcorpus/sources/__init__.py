"""Readers of search exports and reference files: each turns one format into Found records."""

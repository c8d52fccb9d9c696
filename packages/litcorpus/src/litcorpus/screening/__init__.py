"""Screening: search exports in, duplicates out, a ranked queue, decisions into the corpus."""

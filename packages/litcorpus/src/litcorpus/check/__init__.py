"""Validation of records against the taxonomy: fields, values, keys, identifiers, duplicates."""

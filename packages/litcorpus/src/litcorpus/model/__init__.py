"""The corpus as data: problems, YAML reading, the taxonomy and its declared views,
filters, records."""

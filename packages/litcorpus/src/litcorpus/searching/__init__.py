"""Saved searches that keep the review current: `litcorpus search add` saves a query on a
service with an API (arXiv, OpenAlex, Semantic Scholar, Crossref) in saved-searches.yaml, and
`litcorpus search update` re-runs every saved search for the days since its last run, page by
page and resumably, importing each run as a logged search (see update). The services and how
a page is asked for are in services.
"""

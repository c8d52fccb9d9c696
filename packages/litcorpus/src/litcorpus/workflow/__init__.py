"""Changes to the corpus over time: adding entries, comparing with a git ref, checking links."""

"""What the corpus says: statistics, claims, the screening flow, agreement, and the one
result they make."""

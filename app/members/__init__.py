"""Members of a sub-account: list, add, remove, and the login check."""

"""What happened to one (suite, case, metric) between two sides of a comparison."""

IMPROVED, REGRESSED, UNCHANGED, NEW, MISSING = "improved", "regressed", "unchanged", "new", "missing"
STATUSES = (IMPROVED, REGRESSED, UNCHANGED, NEW, MISSING)

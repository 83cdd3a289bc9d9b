"""Numbers from runs: the metric registry and its kernel, paired statistics, A/B gate rules, comparisons."""

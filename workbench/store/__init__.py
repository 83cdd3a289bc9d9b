"""Runs and baselines on disk: run directories, pandas-free headers, atomic files, baselines and floors."""

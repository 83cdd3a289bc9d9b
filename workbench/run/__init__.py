"""Running a corpus: orchestration, options, summaries and verdicts, the resume journal, provenance, merging."""

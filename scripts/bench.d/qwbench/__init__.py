"""QuotaWatch's benchmark harness: run by scripts/bench, not imported by anything else."""

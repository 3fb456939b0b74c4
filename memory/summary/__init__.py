"""Summaries: the summary model or the extractive fallback, the scheduled jobs, and APScheduler."""

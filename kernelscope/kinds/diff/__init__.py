"""Before and after: two kernel reports or two timelines compared."""

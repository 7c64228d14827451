"""Telling the user what happened: the terminal summary (``summary``), JSON, CSV and
SARIF reports, the git-style diff, and the summary of a build or verify."""

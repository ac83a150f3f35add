// Entry point; real wiring comes with the foundation issue.

"""Tests of the wings, app/: one folder per wing."""

"""Tests of the scorecard, app/eval/."""

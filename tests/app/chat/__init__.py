"""Tests of the terminal chat (app/chat/, main.py)."""

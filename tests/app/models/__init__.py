"""Tests of the model choice and the embedded demo model (app/models/)."""

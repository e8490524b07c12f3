"""Tests of the agent over HTTP (app/serve/)."""

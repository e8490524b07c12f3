"""The scorecard (`python main.py eval`): the configured model on the device job's prompt sets (shipped in
`prompts/`), tools files and BFCL's single-turn categories, each case through the real host, scored and
written for a person to read."""

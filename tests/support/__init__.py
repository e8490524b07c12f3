"""What the tests share: loopback fake servers, attack servers, helpers (no tests here)."""

"""Storage adapters (Redis short-term, Qdrant long-term, PostgreSQL tasks and ledger) and pure memory logic."""

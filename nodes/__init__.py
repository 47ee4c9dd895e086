"""One module per graph node (recall, respond, fact_check, write, archive)."""

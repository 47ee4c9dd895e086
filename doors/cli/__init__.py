"""``palace``: the command line (:mod:`doors.cli.main`), one module per command group."""

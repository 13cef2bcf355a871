"""One module per ``logkb`` subcommand; each exposes ``command``."""

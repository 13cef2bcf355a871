"""The one error a catalog raises."""


class CatalogError(Exception):
    """The catalog cannot be used; the message names the file and the key."""

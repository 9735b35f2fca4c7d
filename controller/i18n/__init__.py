"""The players' languages: sentences kept as message and values until a
reader's language renders them, the game's own words, and the gettext
catalogs under ``locale/``."""

"""Data files shipped with ArchScope: translations (i18n/), guided tours (tours/)
and the built-in graphs read from a file (graphs/)."""

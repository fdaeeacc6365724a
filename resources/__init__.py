"""Data files shipped with ArchScope: translations (i18n/) and guided tours (tours/)."""

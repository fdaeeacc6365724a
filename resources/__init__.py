"""Data files shipped with ArchScope: translations (i18n/), guided tours (tours/),
the built-in graphs read from a file (graphs/) and the ODE tab's true spiral (ode/)."""

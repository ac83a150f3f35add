// Cricket module.

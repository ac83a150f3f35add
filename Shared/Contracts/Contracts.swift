// Contracts module.

// Schema module.

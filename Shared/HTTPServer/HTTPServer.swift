// HTTPServer module.

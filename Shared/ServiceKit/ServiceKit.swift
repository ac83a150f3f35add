// ServiceKit module.

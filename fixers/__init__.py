"""One module per SGLang error record; each registers its check with @fixer."""

"""What autofix knows about SGLang releases and models."""

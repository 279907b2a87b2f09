"""Developer tools of the checkout (not part of the package)."""

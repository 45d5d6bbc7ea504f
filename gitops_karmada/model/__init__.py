"""The model: frozen API types (Karmada objects, configuration, diagnostics, errors); imports no other layer."""

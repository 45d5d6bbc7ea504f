"""The model: frozen API types (Karmada objects, configuration, diagnostics, errors); no other layer."""

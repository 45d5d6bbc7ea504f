"""``python -m gitops_karmada`` runs the CLI."""

from gitops_karmada.cli import run

if __name__ == "__main__":
    run()

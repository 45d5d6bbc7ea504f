"""``python -m gitops_karmada.action``: the GitHub Action's step (see ``action.yml``)."""

from gitops_karmada.action.run import entry_point

if __name__ == "__main__":
    entry_point()

"""GitHub Action entry point: run diff and publish the placement report as a pull-request comment."""

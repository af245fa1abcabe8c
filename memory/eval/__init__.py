"""Evaluation and stress harness (issue 7): recall quality, isolation and corrections, measured."""

"""Readers for each kind of source file: text in, facts or a reason out."""

"""Kept for editable installs with old pip; metadata is in setup.cfg."""
from setuptools import setup

setup()

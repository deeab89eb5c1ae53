"""Shim for tools that still call setup.py; the metadata lives in setup.cfg."""
from setuptools import setup

# Extra requirements for the legacy Windows agent; install_requires is in setup.cfg.
WINDOWS_REQUIREMENTS = [
    "pywin32==306",
    "wmi==1.5.1",  # needs pywin32
]

setup(
    extras_require={
        "windows": ["pywin32==306", "wmi==1.5.1"],
    },
    tests_require=[
        'pytest==8.2.2',
    ],
)

"""Build hook: the report notebooks (``notebooks/`` in a checkout, where they are developed) ship
inside the wheel as ``workbench/notebooks/``, so an installed workbench renders reports with no
checkout (``workbench.paths.notebooks_dir``). Everything else is configured in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"


class BuildWithNotebooks(build_py):
    """``build_py``, plus a copy of every report notebook into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's notebooks/ in place
            return
        target = Path(self.build_lib) / "workbench" / "notebooks"
        self.mkpath(str(target))
        for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
            self.copy_file(str(notebook), str(target / notebook.name))


setup(cmdclass={"build_py": BuildWithNotebooks})

"""``python -m pairedframe``: the ``pairedframe`` console script (only loaded when run, so
``import pairedframe`` stays light)."""

from pairedframe.cli import main

if __name__ == "__main__":
    main()

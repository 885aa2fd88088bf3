"""Readers, writers and conversions: TREC files, tables and dicts into pairedframe's schemas."""

from pairedframe.io.convert import as_qrels, as_run
from pairedframe.io.prefs import read_prefs
from pairedframe.io.trec import read_qrels, read_run, read_run_tag, system_name_from_path
from pairedframe.io.zscores import read_zscores

__all__ = ["as_qrels", "as_run", "read_prefs", "read_qrels", "read_run", "read_run_tag", "read_zscores",
           "system_name_from_path"]

"""Renderings of results (trec_eval text, tables, JSON, CSV, markdown, LaTeX): no computation here."""

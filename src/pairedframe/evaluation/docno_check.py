"""Runs whose docnos miss the qrels' spelling: warn instead of silently scoring 0.

A run that lower-cased its docnos (or lost their leading zeros) against qrels in upper case retrieves
no judged document, so every measure is 0 and nothing looks wrong. The check looks at a bounded
sample of the run's rows (:data:`SAMPLE_ROWS` per table or run file), so it costs the same on a
100 M-line run as on a small one.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import polars as pl

from pairedframe.checks import near_miss_kind, shown_ids
from pairedframe.errors import PartlyEmptyWarning, user_stacklevel
from pairedframe.io.stream import QueryBlock

#: Rows of a run table, or first lines of a run file, that the check reads.
SAMPLE_ROWS = 2**14
#: Stretches of consecutive rows a large run table is sampled in.
STRETCHES = 8
#: Fewest near matches (and at least 1 % of the sampled rows) that warn while some documents match
#: as spelled; with none matching, one near match warns (every measure would be 0), and so does one
#: that differs only in Unicode normalisation (the same text: never another document).
NEAR_MISS_MIN = 5
#: Fewest sampled rows of judged queries (over at least 2 queries) before a run none of whose documents
#: is judged warns: a real ranking of a judged query retrieves some judged document; a tiny test run may not.
NO_MATCH_MIN = 100

#: A run file warns as having swapped rank and score columns when at least this share of its sampled
#: queries with RANKS_AS_SCORES_MIN_DOCS lines or more have the scores 1, 2, 3, ... in file order.
RANKS_AS_SCORES_SHARE = 0.9
RANKS_AS_SCORES_MIN_DOCS = 3

_COLUMNS = ("system", "qid", "docno")


def docno_key(column: str = "docno") -> pl.Expr:
    """A docno with case, surrounding blanks, leading zeros and Unicode normalisation ignored: how two
    spellings of one document usually differ ('FR940104-0-00001' / 'fr940104-0-00001', '0042' / '42',
    'é' as one code point (NFC) / as 'e' and a combining accent (NFD)). Applied to unmatched rows only."""
    key = nfc(pl.col(column)).str.strip_chars().str.to_lowercase().str.strip_chars_start("0")
    return pl.when(key == "").then(pl.lit("0")).otherwise(key)


def nfc(ids: pl.Expr) -> pl.Expr:
    """``ids`` in Unicode normalisation form C; ASCII ids (already NFC) are left as they are, which is five
    times faster than normalising them."""
    return pl.when(ids.str.contains(r"[^\x00-\x7F]")).then(ids.str.normalize("NFC")).otherwise(ids)


@dataclass
class DocnoSample:
    """The rows the check reads: ``rows`` (system, qid, docno), and the systems (``partial``) of
    which they are only a part."""

    parts: list[pl.DataFrame] = field(default_factory=list)
    partial: set[str] = field(default_factory=set)

    @classmethod
    def of_table(cls, run: pl.DataFrame) -> DocnoSample:
        """A run table's rows (SAMPLE_ROWS of them, in STRETCHES evenly spaced runs of consecutive
        rows, when it has more): consecutive rows hold few queries, so the check reads the qrels of
        few queries, and the stretches reach every system of a table sorted by system."""
        rows = run.select(_COLUMNS)
        if rows.height <= SAMPLE_ROWS:
            return cls([rows])
        length, gap = SAMPLE_ROWS // STRETCHES, rows.height // STRETCHES
        sample = cls([rows.slice(i * gap, length) for i in range(STRETCHES)])
        sample.partial = set(sample.rows["system"].unique().to_list())
        return sample

    def first_rows(self, blocks: Iterator[QueryBlock]) -> Iterator[QueryBlock]:
        """Pass ``blocks`` (one run file's) through, keeping its first SAMPLE_ROWS rows, with their score
        in file order (for :func:`warn_ranks_as_scores`)."""
        taken = 0
        for block in blocks:
            part = block.run.select(*_COLUMNS, "score").head(max(SAMPLE_ROWS - taken, 0))
            if part.height:
                self.parts.append(part)
                taken += part.height
            if part.height < block.run.height:  # rows left out: only a part of this run is checked
                self.partial.add(str(block.run["system"][0]))
            yield block

    @property
    def rows(self) -> pl.DataFrame:
        if not self.parts:
            return pl.DataFrame(schema={c: pl.String for c in _COLUMNS})
        return pl.concat([p.select(pl.col(c).cast(pl.String) for c in _COLUMNS) for p in self.parts])


def warn_ranks_as_scores(sample: DocnoSample) -> None:
    """Warn, once per run file, when in nearly every sampled query (:data:`RANKS_AS_SCORES_SHARE`, of
    :data:`RANKS_AS_SCORES_MIN_DOCS` or more lines) the scores are 1, 2, 3, ... in file order: ranks, most
    likely, read from a file whose rank and score columns are swapped (``qid Q0 docno score rank tag``).
    trec_eval ranks by score, highest first, so the file's first line ranks last and the values are near 0;
    they stay trec_eval's. Only file samples keep the score in file order (tables have no line order)."""
    parts = [p.select("system", "qid", "score") for p in sample.parts if "score" in p.columns]
    if not parts:
        return
    queries = (pl.concat(parts).group_by("system", "qid", maintain_order=True)
               .agg(pl.len().alias("n"), (pl.col("score") == pl.int_range(1, pl.len() + 1)).all().alias("ranks"))
               .filter(pl.col("n") >= RANKS_AS_SCORES_MIN_DOCS))
    per_run = queries.group_by("system", maintain_order=True).agg(pl.len().alias("n"), pl.col("ranks").sum())
    for system, n, ranks in per_run.filter(pl.col("ranks") >= RANKS_AS_SCORES_SHARE * pl.col("n")).iter_rows():
        warnings.warn(f"run {system!r}: in {ranks:,} of its {n:,} first queries the scores are 1, 2, 3, ... in file "
                      "order, as ranks are: the rank and score columns look swapped (qid Q0 docno score rank tag "
                      "instead of qid Q0 docno rank score tag); trec_eval ranks by score, highest first, so the "
                      "first line ranks last and the values (trec_eval's for the file as it is) are near 0",
                      UserWarning, stacklevel=user_stacklevel())


def warn_near_miss_docnos(sample: DocnoSample, qrels: pl.DataFrame) -> None:
    """Warn, once per run, when some of its sampled documents (at least :data:`NEAR_MISS_MIN` and 1 %,
    or any one when no sampled document matches as spelled) match a judged docno of their query only except
    for case, blanks, leading zeros or Unicode normalisation (NFC / NFD): docnos are compared as strings, so those documents count as unjudged and lower every measure (to 0 when no
    document matches as spelled). A run that merely retrieves unjudged documents has no such near
    matches (a different document rarely equals a judged one up to case) and gets no warning."""
    rows = sample.rows
    own = qrels.select("qid", "docno").join(rows.select("qid").unique(), on="qid", how="semi").unique()
    rows = rows.join(own.select("qid").unique(), on="qid", how="semi")  # the sample's judged queries
    if not rows.height:
        return
    rows = rows.join(own.with_columns(pl.lit(True).alias("_judged")), on=["qid", "docno"], how="left")
    counts = rows.group_by("system", maintain_order=True).agg(pl.len().alias("n"),
                                                              pl.col("_judged").count().alias("exact"))
    unjudged = rows.filter(pl.col("_judged").is_null()).with_columns(docno_key().alias("_key"))
    if not unjudged.height:
        return
    near = _near_matches(unjudged, own)
    _warn_nothing_judged(rows, counts, own, near["system"], sample)
    found = near.group_by("system", maintain_order=True).agg(pl.len().alias("near"), pl.col("docno").first(),
                                                             pl.col("judged_docno").first(),
                                                             pl.struct("docno", "judged_docno").alias("pairs"),
                                                             _same_text().sum().alias("same_text"))
    for system, n, exact, near_count, docno, judged_docno, pairs, _ in (
            counts.join(found, on="system", how="inner", maintain_order="left")
            .filter(((pl.col("near") >= NEAR_MISS_MIN) & (pl.col("near") >= 0.01 * pl.col("n")))
                    | ((pl.col("exact") == 0) & (pl.col("near") >= 1)) | (pl.col("same_text") >= 1)).iter_rows()):
        checked = "a sample of " if system in sample.partial else ""
        effect = "the measures are 0" if exact == 0 else "every measure is lower than it should be"
        shown_run, shown_judged = shown_ids(docno, judged_docno)
        warnings.warn(
            f"run {system!r}: only {exact:,} of {checked}{n:,} retrieved documents of judged queries are in the "
            f"qrels as spelled, while {near_count:,} more match a judged docno of their query {_kind(pairs)} "
            f"(e.g. run {shown_run} ~ qrels {shown_judged}): docnos are compared as strings, so "
            f"those documents count as unjudged and {effect}; rewrite the docnos of one file to match the other",
            PartlyEmptyWarning, stacklevel=user_stacklevel())


def _same_text() -> pl.Expr:
    """A near match that differs from the judged docno only in Unicode normalisation: the same text, so
    (unlike a case difference) never another document; one such row warns."""
    return nfc(pl.col("docno")) == nfc(pl.col("judged_docno"))


def _kind(pairs: list[dict]) -> str:
    """How a run's near-miss docnos differ from the judged ones: in case, blanks or leading zeros, or
    only in Unicode normalisation (then the message says so: the two look the same when printed)."""
    return near_miss_kind([(p["docno"], p["judged_docno"]) for p in pairs], usual="case, blanks or leading zeros")


def _near_matches(unjudged: pl.DataFrame, own: pl.DataFrame) -> pl.DataFrame:
    """The unjudged sampled rows whose docno equals a judged docno of their query up to case, blanks,
    leading zeros and Unicode normalisation (with that ``judged_docno``)."""
    keys = (own.join(unjudged.select("qid").unique(), on="qid", how="semi")
            .select("qid", pl.col("docno").alias("judged_docno"), docno_key().alias("_key"))
            .unique(subset=["qid", "_key"], keep="first", maintain_order=True))
    return unjudged.join(keys, on=["qid", "_key"], how="inner", maintain_order="left")


def _warn_nothing_judged(rows: pl.DataFrame, counts: pl.DataFrame, own: pl.DataFrame, near_systems: pl.Series,
                         sample: DocnoSample) -> None:
    """Warn, once per run, when none of at least :data:`NO_MATCH_MIN` sampled documents of 2 or more judged
    queries is judged, nor a near match (those warn above): the qrels are most likely another
    collection's (DL-2019 passage runs against the document qrels), and every measure is 0."""
    empty = counts.filter((pl.col("exact") == 0) & (pl.col("n") >= NO_MATCH_MIN)
                          & ~pl.col("system").is_in(near_systems.implode()))
    for system, n in empty.select("system", "n").iter_rows():
        mine = rows.filter(pl.col("system") == system)
        if mine["qid"].n_unique() < 2:
            continue
        qid, docno = mine.row(0)[1:3]
        judged = own.filter(pl.col("qid") == qid)["docno"][0]
        checked = "a sample of " if system in sample.partial else ""
        warnings.warn(
            f"run {system!r}: none of {checked}{n:,} retrieved documents of {mine['qid'].n_unique():,} judged "
            f"queries is in the qrels (e.g. query {qid!r}: run docno {docno!r}, a judged docno {judged!r}), so "
            f"every measure is 0: are these the qrels of this run's collection?",
            PartlyEmptyWarning, stacklevel=user_stacklevel())

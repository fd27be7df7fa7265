"""Text handling shared by every judge and metric: one tokeniser, one stemmer, one claim splitter.

One module per job, each importing only those before it: `cache` (caches by text, bounded in bytes, and
the constant-time test of wide text they route by),
`porter` (the stemmer), `numbers` (quantities in digits and in words), `terms` (words as stemmed content
terms, and a text's profile), `passages` (retrieved passages, read once), `abstention` (sentences that
decline to answer, and filler that asserts nothing) and `claims` (sentences and claims). Names are
imported from the module that holds them: this package re-exports none.
"""

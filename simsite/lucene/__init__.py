"""WebShop's search engine reproduced in Python: Anserini's English analysis and Lucene 8's BM25."""

from shopsim.simsite.lucene.analysis import analyze
from shopsim.simsite.lucene.bm25 import LuceneBM25

__all__ = ["LuceneBM25", "analyze"]

"""The text toolkit shared by every layer: normalisation (folding, printable text, codes), language detection and
BM25 tokenisation, sentence spans. A leaf package: it imports nothing from the rest of ``regintel``."""

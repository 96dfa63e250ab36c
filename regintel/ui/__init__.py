"""Streamlit components and state shared by the pages (the only engine package that imports Streamlit)."""

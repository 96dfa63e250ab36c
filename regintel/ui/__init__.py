"""Streamlit components and state shared by the pages, and the Gradio front end (``python -m regintel.ui.gradio_app``):
the only engine package that imports Streamlit or Gradio."""

"""RegIntel Copilot engine: retrieval, LLM layer, rules graph and compliance chat.

Nothing in this package imports Streamlit (only ``app.py``, ``views/`` and ``regintel.ui`` do).
"""

__version__ = "0.1.0"

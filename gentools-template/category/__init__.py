"""Saved code actions of the {{category}} category: one package per action.

Each action's interface is ``<action>/api.py``; ``<action>/impl.py`` holds the work.
"""

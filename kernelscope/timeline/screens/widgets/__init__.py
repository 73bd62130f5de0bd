"""Widgets only this kind's screens use."""

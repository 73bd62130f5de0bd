"""Widgets and Rich renderables shared by kernelscope's screens (one module each)."""

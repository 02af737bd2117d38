"""The Redis control plane: queue metadata, cursors, timers, receipts and wake-ups.

This package imports no other TideMQ package (DESIGN.md section 2).
"""

"""The pure core: plain data in, plain data out. No Git, no filesystem, no clock, no logging."""

# Old-kernel emulation: an LD_PRELOAD shim and the kernel matrix (issue 4).

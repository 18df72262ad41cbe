01-sync --items 40 --latency 5ms --phases 1

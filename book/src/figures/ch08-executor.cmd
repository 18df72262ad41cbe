07-executor --items 400 --conns 20 --latency 5ms
